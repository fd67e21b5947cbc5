package org.flinkss.jobs.s3;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.testing.S3TestServer;
import org.flinkss.testutils.MiniClusters;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An embedded run (MiniCluster, this JVM) with checkpoints and a {@code FileSink} on {@code s3://}:
 * the S3 file system comes from the plugin the jobs module carries ({@link Storage#initialize}),
 * not from the class path, where its Hadoop classes would clash with Parquet's and Delta Kernel's.
 */
@Tag("ports")
class S3EmbeddedITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.create();

    private static final int NUMBERS = 3_000;

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("s3-embedded-it");

    @Test
    void anEmbeddedJobCheckpointsToS3AndItsFileSinkWritesEveryRecordOnce() throws Exception {
        Path base = S3.server().freshPrefix("embedded");
        Path out = new Path(base, "out");
        Path checkpoints = new Path(base, "checkpoints");

        S3SmokeJob.main(
                new String[] {
                    out.toString(), checkpoints.toString(), String.valueOf(NUMBERS), "1"
                });

        // The FileSink commits part files only at a completed checkpoint (the job's last one at
        // the end of its input), so finished parts prove a checkpoint was written to S3; the
        // checkpoints themselves are gone: a finished job's are discarded (no retention set).
        List<Path> parts =
                objects(out).stream().filter(p -> p.getName().startsWith("part-")).toList();
        assertThat(parts).as("finished part files under %s", out).isNotEmpty();
        int[] counts = new int[NUMBERS];
        for (Path part : parts) {
            for (String line : Storage.readText(part).split("\n")) {
                if (!line.isEmpty()) {
                    counts[Integer.parseInt(line.substring(0, line.indexOf(' ')))]++;
                }
            }
        }
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < NUMBERS && wrong.size() < 10; i++) {
            if (counts[i] != 1) {
                wrong.add(i + " x" + counts[i]);
            }
        }
        assertThat(wrong).as("numbers not written exactly once (first 10)").isEmpty();
    }

    private static List<Path> objects(Path folder) throws Exception {
        List<Path> all = new ArrayList<>();
        for (FileStatus s : Storage.list(folder)) {
            if (s.isDir()) {
                all.addAll(objects(s.getPath()));
            } else {
                all.add(s.getPath());
            }
        }
        return all;
    }
}
