package org.flinkss.jobs.s3;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.DefaultRollingPolicy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * A tiny job for the S3 plumbing of the cluster, independent of the project's code: the numbers
 * 0..n-1, each on a line padded to about 1 KiB, written by a {@link FileSink} to an {@code s3://}
 * folder with checkpoints every second in another {@code s3://} folder.
 *
 * <p>Part files roll at 8 MiB only, so each stays open over many checkpoints: every checkpoint
 * persists an open multipart upload (Flink's S3 recoverable writer), and each file is completed
 * from several parts of at least 5 MiB ({@code s3.upload.min.part.size}) after the checkpoint that
 * closed it. The records are slowed down so that the run spans several checkpoints and a
 * TaskManager can be killed in the middle of it.
 *
 * <p>Arguments: {@code <output s3:// folder> <checkpoint s3:// folder> <n> <milliseconds per
 * record>}.
 */
public final class S3SmokeJob {

    static final int LINE_BYTES = 1024;

    private S3SmokeJob() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            throw new IllegalArgumentException(
                    "usage: S3SmokeJob <output s3:// folder> <checkpoint s3:// folder> <n> <ms per"
                            + " record>");
        }
        String output = args[0];
        long n = Long.parseLong(args[2]);
        long sleepMs = Long.parseLong(args[3]);

        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, args[1]);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.enableCheckpointing(1000);
        env.setParallelism(2);

        FileSink<String> sink =
                FileSink.forRowFormat(new Path(output), new SimpleStringEncoder<String>("UTF-8"))
                        .withRollingPolicy(
                                DefaultRollingPolicy.builder()
                                        .withMaxPartSize(MemorySize.ofMebiBytes(8))
                                        .withRolloverInterval(Duration.ofMinutes(10))
                                        .withInactivityInterval(Duration.ofMinutes(10))
                                        .build())
                        .build();
        env.fromSequence(0, n - 1)
                .map(new Slow(sleepMs))
                .name("slow-pad")
                .sinkTo(sink)
                .name("s3-file-sink");
        env.execute("s3-smoke");
    }

    /**
     * Writes a jar with this job's classes only (Flink's own jars are on the cluster) to {@code
     * jar}, for {@code flink run -c} from a test.
     */
    public static java.nio.file.Path writeJar(java.nio.file.Path jar) throws IOException {
        java.nio.file.Path classes =
                java.nio.file.Path.of(
                        S3SmokeJob.class
                                .getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .getPath());
        String folder = S3SmokeJob.class.getPackageName().replace('.', '/');
        Files.createDirectories(jar.getParent());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (OutputStream out = Files.newOutputStream(jar);
                JarOutputStream jarOut = new JarOutputStream(out, manifest);
                Stream<java.nio.file.Path> files = Files.list(classes.resolve(folder))) {
            for (java.nio.file.Path file :
                    files.filter(
                                    f ->
                                            f.getFileName()
                                                    .toString()
                                                    .startsWith(S3SmokeJob.class.getSimpleName()))
                            .toList()) {
                jarOut.putNextEntry(new JarEntry(folder + "/" + file.getFileName()));
                jarOut.write(Files.readAllBytes(file));
                jarOut.closeEntry();
            }
        }
        return jar;
    }

    /** The number, padded with dots to {@link #LINE_BYTES} - 1 characters, after a pause. */
    static final class Slow implements MapFunction<Long, String> {
        private final long sleepMs;

        Slow(long sleepMs) {
            this.sleepMs = sleepMs;
        }

        @Override
        public String map(Long value) throws Exception {
            if (sleepMs > 0) {
                Thread.sleep(sleepMs);
            }
            StringBuilder line = new StringBuilder(LINE_BYTES).append(value).append(' ');
            while (line.length() < LINE_BYTES - 1) {
                line.append('.');
            }
            return line.toString();
        }
    }
}
