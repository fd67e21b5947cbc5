package org.flinkss.course.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

public class BronzeITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private RunOptions options() {
        return options(base, 2);
    }

    public static RunOptions options(Path base, int parallelism) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(parallelism)
                .printProgress(false)
                .build();
    }

    @Test
    void courseScenarioCountsFiveHundredThenAThousandAndNothingIsReprocessed() {
        RunOptions options = options();
        Warehouse warehouse = new Warehouse(options.warehouse());
        BronzeQuery bronze = new BronzeQuery(options.events());

        // Step 1: land batch 1, run bronze: 500 rows, one batch of 500.
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        QueryRunner.Result first = QueryRunner.run(bronze, options);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(500);
        assertThat(first.lastProgress.path("batchId").asLong()).isEqualTo(0);
        assertThat(first.lastProgress.path("numInputRows").asLong()).isEqualTo(500);
        assertThat(first.lastProgress.path("sink").path("numOutputRows").asLong()).isEqualTo(500);
        assertThat(first.lastProgress.path("sources").path(0).path("description").asText())
                .isEqualTo("FileStreamSource[" + options.events().toUri() + "*.json]");

        // Step 2: land batch 2, run again: only the 500 new rows are read.
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.Result second = QueryRunner.run(bronze, options);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(1000);
        assertThat(second.lastProgress.path("batchId").asLong()).isEqualTo(1);
        assertThat(second.lastProgress.path("numInputRows").asLong()).isEqualTo(500);

        // Step 3: nothing new: 0 rows read, no new batch, the table unchanged.
        QueryRunner.Result third = QueryRunner.run(bronze, options);
        assertThat(third.batches()).isZero();
        assertThat(third.lastProgress.path("numInputRows").asLong()).isZero();
        assertThat(third.lastProgress.path("batchId").asLong()).isEqualTo(2);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(1000);
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .extracting(row -> row.get(0))
                .containsExactlyElementsOf(LongStream.range(0, 1000).boxed().toList());
        assertThat(ProgressTracker.history(options.checkpointOf(BronzeQuery.NAME)))
                .extracting(p -> p.path("batchId").asLong())
                .containsExactly(0L, 1L);
    }

    @Test
    void aBacklogIsSplitIntoCommittedBatchesByMaxFilesPerTrigger() {
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .maxFilesPerTrigger(2)
                        .checkpointInterval(Duration.ofMillis(200))
                        .build();
        for (int batch = 1; batch <= 5; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
        }

        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events()), options);

        // Five files, two per trigger: three batches, each with its own id and its own commit.
        assertThat(run.progress)
                .extracting(p -> p.path("batchId").asLong())
                .containsExactly(0L, 1L, 2L);
        assertThat(run.progress)
                .extracting(p -> p.path("numInputRows").asLong())
                .containsExactly(1000L, 1000L, 500L);
        assertThat(run.progress)
                .extracting(p -> p.path("sink").path("numOutputRows").asLong())
                .containsExactly(1000L, 1000L, 500L);
        assertThat(new Warehouse(options.warehouse()).count(BronzeQuery.TABLE)).isEqualTo(2500);
    }

    @Test
    void maxBytesPerTriggerSplitsABacklogByFileSizeWithOneFileAtLeast() throws Exception {
        Path events = base.resolve("events");
        for (int batch = 1; batch <= 5; batch++) {
            LocalEventFiles.writeBatch(
                    events, batch, EventGenerator.events((batch - 1) * 500L, 500));
        }
        long fileSize;
        try (var files = Files.walk(events)) {
            fileSize =
                    files.filter(
                                    f ->
                                            f.toString().endsWith(".json")
                                                    && !f.getFileName().toString().startsWith("."))
                            .mapToLong(f -> f.toFile().length())
                            .max()
                            .orElseThrow();
        }
        // Room for two files of about that size, not three: batches of 2, 2 and 1 files.
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .maxBytesPerTrigger(fileSize * 2 + fileSize / 2)
                        .build();
        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events()), options);
        assertThat(run.progress)
                .extracting(p -> p.path("numInputRows").asLong())
                .containsExactly(1000L, 1000L, 500L);

        // A limit below one file's size still moves: one file per batch.
        LocalEventFiles.writeBatch(events, 6, EventGenerator.events(2500, 500));
        LocalEventFiles.writeBatch(events, 7, EventGenerator.events(3000, 500));
        QueryRunner.Result small =
                QueryRunner.run(
                        new BronzeQuery(options.events()),
                        RunOptions.builder()
                                .base(Storage.location(base.toFile()))
                                .parallelism(2)
                                .printProgress(false)
                                .maxBytesPerTrigger(1)
                                .build());
        assertThat(small.progress)
                .extracting(p -> p.path("numInputRows").asLong())
                .containsExactly(500L, 500L);
        assertThat(new Warehouse(options.warehouse()).count(BronzeQuery.TABLE)).isEqualTo(3500);
    }

    @Test
    void parallelismOneAndTwoWriteIdenticalTables() {
        List<List<List<Object>>> tables = new ArrayList<>();
        for (int parallelism : new int[] {1, 2}) {
            RunOptions options = options(base.resolve("p" + parallelism), parallelism);
            for (int batch = 1; batch <= 3; batch++) {
                EventFiles.writeBatch(
                        options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
                QueryRunner.run(new BronzeQuery(options.events()), options);
            }
            tables.add(new Warehouse(options.warehouse()).sortedValues(BronzeQuery.TABLE));
        }
        assertThat(tables.get(0)).hasSize(1500).containsExactlyElementsOf(tables.get(1));
    }

    @Test
    void filesThatAreNotJsonAndHiddenFilesAreIgnored() throws Exception {
        RunOptions options = options();
        Path folder =
                LocalEventFiles.writeBatch(
                        Storage.localFile(options.events(), "a test file").toPath(),
                        1,
                        EventGenerator.events(0, 500));
        Files.writeString(folder.resolve("notes.txt"), "{\"event_id\": 12345}\n");
        Files.writeString(folder.resolve(".part-0.json.crc"), "not data\n");

        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events()), options);

        assertThat(run.numInputRows()).isEqualTo(500);
        assertThat(new Warehouse(options.warehouse()).count(BronzeQuery.TABLE)).isEqualTo(500);
    }
}
