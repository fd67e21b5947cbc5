package org.flinkss.course.event;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.storage.Storage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

class LandEventsITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path tmp;

    @Test
    void bothApisLandTheSameFileAsSparksLandEvents() throws Exception {
        // Step 1: land batch 1 (ids 0..499) with each API, into its own folder.
        Path viaDataStream =
                Storage.localFile(
                                LandEvents.withDataStream(
                                        streamEnv(),
                                        Storage.location(tmp.resolve("datastream").toFile()),
                                        1,
                                        0,
                                        500),
                                "a test file")
                        .toPath();
        Path viaTable =
                Storage.localFile(
                                LandEvents.withTable(
                                        batchTableEnv(),
                                        Storage.location(tmp.resolve("table").toFile()),
                                        1,
                                        0,
                                        500),
                                "a test file")
                        .toPath();

        // Step 2: the same lines, line by line.
        List<String> dataStreamLines = Files.readAllLines(EventFilesTest.partFile(viaDataStream));
        List<String> tableLines = Files.readAllLines(EventFilesTest.partFile(viaTable));
        assertThat(tableLines).containsExactlyElementsOf(dataStreamLines);

        // Step 3: Spark's first lines, then every id once, in order.
        assertThat(dataStreamLines)
                .hasSize(500)
                .startsWith(EventJsonTest.SPARK_LINES.toArray(String[]::new));
        List<Long> ids =
                dataStreamLines.stream()
                        .map(line -> EventJson.parse(line).eventId)
                        .collect(Collectors.toList());
        assertThat(ids)
                .containsExactlyElementsOf(
                        LongStream.range(0, 500).boxed().collect(Collectors.toList()));
        assertThat(LocalEventFiles.readAll(viaTable)).isEqualTo(EventGenerator.events(0, 500));
    }

    @Test
    void landingABatchAgainReplacesItsFolder() throws Exception {
        Path eventsDir = tmp.resolve("events");
        LandEvents.withDataStream(streamEnv(), Storage.location(eventsDir.toFile()), 1, 0, 500);
        Path firstPart = EventFilesTest.partFile(eventsDir.resolve("batch_1"));

        TableEnvironment tEnv = batchTableEnv();
        LandEvents.withTable(tEnv, Storage.location(eventsDir.toFile()), 1, 0, 500);
        Path batch =
                Storage.localFile(
                                LandEvents.withTable(
                                        tEnv, Storage.location(eventsDir.toFile()), 1, 0, 500),
                                "a test file")
                        .toPath();

        Path part = EventFilesTest.partFile(batch);
        assertThat(part.getFileName()).isNotEqualTo(firstPart.getFileName());
        assertThat(Files.readAllLines(part)).hasSize(500);
        try (var names = Files.list(eventsDir)) {
            assertThat(names.map(p -> p.getFileName().toString())).containsExactly("batch_1");
        }
    }

    @Test
    void tableApiLandsEveryIdOfAnUnevenRangeOnceInStreamingModeToo() {
        // 333 rows over 2 subtasks: the datagen sequence and its row count split them alike.
        TableEnvironment streaming = TableEnvironment.create(EnvironmentSettings.inStreamingMode());

        Path batch =
                Storage.localFile(
                                LandEvents.withTable(
                                        streaming,
                                        Storage.location(tmp.resolve("events").toFile()),
                                        2,
                                        1000,
                                        333),
                                "a test file")
                        .toPath();

        assertThat(LocalEventFiles.readAll(batch)).isEqualTo(EventGenerator.events(1000, 333));
    }

    @Test
    void flinkRoundMatchesSparksHalfUpOnEveryAmount() throws Exception {
        // An amount is ROUND(k / 100, 2) for k in 0..9999; Spark rounds the double's decimal text
        // HALF_UP. Flink's ROUND must agree on each of them, or the table job would drift.
        TableEnvironment tEnv = batchTableEnv();
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE cents (k INT) WITH ('connector' = 'datagen',"
                        + " 'fields.k.kind' = 'sequence', 'fields.k.start' = '0',"
                        + " 'fields.k.end' = '9999', 'number-of-rows' = '10000',"
                        + " 'rows-per-second' = '1000000')");
        List<String> mismatches = new ArrayList<>();
        int rows = 0;
        try (CloseableIterator<Row> it =
                tEnv.sqlQuery("SELECT k, ROUND(CAST(k AS DOUBLE) / 100, 2) AS amount FROM cents")
                        .execute()
                        .collect()) {
            while (it.hasNext()) {
                Row row = it.next();
                int k = row.<Integer>getFieldAs("k");
                double flink = row.<Double>getFieldAs("amount");
                double spark = EventGenerator.roundHalfUp(k / 100.0, 2);
                if (Double.compare(flink, spark) != 0) {
                    mismatches.add(k + ": " + flink + " vs " + spark);
                }
                rows++;
            }
        }
        assertThat(rows).isEqualTo(10_000);
        assertThat(mismatches).isEmpty();
    }

    private static StreamExecutionEnvironment streamEnv() {
        return StreamExecutionEnvironment.getExecutionEnvironment();
    }

    private static TableEnvironment batchTableEnv() {
        return TableEnvironment.create(EnvironmentSettings.inBatchMode());
    }
}
