package org.flinkss.jobs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class QuarantineITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    @Test
    void badLinesLandInTheQuarantineWithFileLineAndReasonAndGoodLinesInBronze() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        Path file =
                Storage.localFile(options.events(), "a test file")
                        .toPath()
                        .resolve("batch_1")
                        .resolve("part-00000-broken-c000.json");
        Files.createDirectories(file.getParent());
        // Step 1: a file of 3 good lines and 3 bad ones (not JSON, a wrong type, cut short).
        Files.write(
                file,
                List.of(
                        EventJson.toJson(EventGenerator.event(0)),
                        "this is not json",
                        EventJson.toJson(EventGenerator.event(1)),
                        "{\"event_id\":2,\"user_id\":\"abc\",\"event_type\":\"view\"}",
                        "",
                        "{\"event_id\":3,\"user_id\":6,",
                        EventJson.toJson(EventGenerator.event(4))));

        // Step 2: run bronze: nothing crashes, nothing is lost.
        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events()), options);

        // Step 3: the good lines are in bronze, the bad ones in the quarantine, where they were.
        Warehouse warehouse = new Warehouse(options.warehouse());
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .extracting(row -> row.get(0))
                .containsExactly(0L, 1L, 4L);
        List<List<Object>> bad = warehouse.sortedValues(BronzeQuery.QUARANTINE);
        assertThat(bad).extracting(row -> row.get(0)).containsOnly(file.toString());
        assertThat(bad).extracting(row -> row.get(1)).containsExactly(2L, 4L, 6L);
        assertThat(bad)
                .extracting(row -> row.get(2))
                .containsExactly(
                        "this is not json",
                        "{\"event_id\":2,\"user_id\":\"abc\",\"event_type\":\"view\"}",
                        "{\"event_id\":3,\"user_id\":6,");
        assertThat(bad.get(0).get(3).toString()).startsWith("not JSON");
        assertThat(bad.get(1).get(3).toString()).contains("user_id");
        assertThat(run.lastProgress.path("numInputRows").asLong()).isEqualTo(6);
        assertThat(run.lastProgress.path("sources").path(0).path("numBadRows").asLong())
                .isEqualTo(3);
        assertThat(run.lastProgress.path("sink").path("numOutputRows").asLong()).isEqualTo(3);
    }
}
