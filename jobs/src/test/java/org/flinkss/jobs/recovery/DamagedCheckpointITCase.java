package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.ops.QueryReset;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 14, point 8: a damaged restore point or identity file stops a run with one line naming the
 * file and the way out, or, when an older restore point is intact, the run restores that one and
 * says so.
 */
class DamagedCheckpointITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    private RunOptions options() {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(1)
                .printProgress(false)
                .out(new PrintStream(printed, true, StandardCharsets.UTF_8))
                .build();
    }

    private QueryRunner.Result run() {
        RunOptions options = options();
        return QueryRunner.run(new BronzeQuery(options.events()), options);
    }

    private CheckpointLayout checkpoint() {
        return options().checkpointOf(BronzeQuery.NAME);
    }

    private void land(int batch) throws IOException {
        EventFiles.writeBatch(
                options().events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
    }

    @Test
    void aTruncatedSavepointWithNothingOlderStopsTheRunNamingTheFileAndReset() throws Exception {
        land(1);
        run();
        Path savepoint =
                Storage.localFile(
                                new RestorePoints(checkpoint()).newest().orElseThrow(),
                                "a test file")
                        .toPath();
        truncate(savepoint.resolve("_metadata"));
        land(2);

        assertThatThrownBy(this::run)
                .isInstanceOf(QueryException.class)
                .hasMessageContaining(savepoint.resolve("_metadata") + " cannot be read (truncated")
                .hasMessageContaining("No other checkpoint or savepoint")
                .hasMessageContaining("'reset bronze'")
                .hasNoCause()
                .satisfies(e -> assertThat(e.getMessage().lines()).hasSize(1));
    }

    @Test
    void aTruncatedNewestRestorePointIsSetAsideAndThePreviousOneRestoredSayingSo()
            throws Exception {
        land(1);
        run();
        CheckpointLayout checkpoint = checkpoint();
        Path intact =
                Storage.localFile(
                                new RestorePoints(checkpoint).newest().orElseThrow(), "a test file")
                        .toPath();
        // A newer restore point whose _metadata was cut short (a disk that filled up).
        Path damaged =
                Storage.localFile(checkpoint.savepoints(), "a test file")
                        .toPath()
                        .resolve("savepoint-zz-damaged");
        copyTree(intact, damaged);
        truncate(damaged.resolve("_metadata"));
        Files.setLastModifiedTime(
                damaged.resolve("_metadata"),
                FileTime.fromMillis(
                        Files.getLastModifiedTime(intact.resolve("_metadata")).toMillis()
                                + 60_000));
        // Compared as local files: a location made of an existing folder ends in '/'.
        assertThat(
                        new RestorePoints(checkpoint)
                                .newest()
                                .map(p -> Storage.localFile(p, "a test file").toPath()))
                .contains(damaged);
        land(2);

        QueryRunner.Result second = run();

        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("warning: query 'bronze': " + damaged.resolve("_metadata"))
                .contains("cannot be read (truncated")
                .contains(
                        "moved to "
                                + Storage.localFile(checkpoint.damaged(), "a test file")
                                        .toPath()
                                        .resolve("savepoint-zz-damaged"))
                .contains("Restoring from the previous restore point, " + intact + ", instead");
        assertThat(second.numInputRows()).isEqualTo(500);
        assertThat(eventIds())
                .containsExactlyElementsOf(LongStream.range(0, 1000).boxed().toList());
    }

    @Test
    void anEmptyIdentityFileStopsTheRunNamingItAndResetStartsOver() throws Exception {
        land(1);
        run();
        Path metadata = Storage.localFile(checkpoint().metadata(), "a test file").toPath();
        Files.writeString(metadata, "");
        land(2);

        assertThatThrownBy(this::run)
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("its identity file " + metadata + " is damaged (it is empty)")
                .hasMessageContaining("'reset bronze'")
                .hasMessageNotContaining("belongs to query ''");

        List<String> emptied =
                QueryReset.reset(
                        Storage.location(base.toFile()),
                        new Warehouse(options().warehouse()),
                        options().database(),
                        QueryCatalog.BRONZE.queryName());
        assertThat(emptied).contains(BronzeQuery.TABLE);
        run();
        assertThat(eventIds())
                .as("reset emptied the table the damaged identity no longer listed")
                .containsExactlyElementsOf(LongStream.range(0, 1000).boxed().toList());
    }

    // ---------------------------------------------------------------------------------------------

    private List<Long> eventIds() {
        return new Warehouse(options().warehouse())
                .sortedValues(BronzeQuery.TABLE).stream().map(row -> (Long) row.get(0)).toList();
    }

    private static void truncate(Path file) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(f.length() / 2);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var paths = Files.walk(from)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
