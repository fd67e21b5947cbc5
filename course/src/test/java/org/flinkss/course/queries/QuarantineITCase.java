package org.flinkss.course.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.BadLines;
import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class QuarantineITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    /**
     * Issue 37 point 3: by default bronze holds the rows Spark's PERMISSIVE reader makes of the
     * lines that are not clean (a row of nulls for a line that is not a JSON object, the value of
     * the wrong type null), and each of those lines is also in the quarantine, where it was.
     */
    @Test
    void badLinesGiveSparksRowsInBronzeAndLandInTheQuarantineWithFileLineAndReason()
            throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        Path file = landMixedFile(options);
        Event e0 = EventGenerator.event(0);
        Event e1 = EventGenerator.event(1);
        Event e4 = EventGenerator.event(4);

        // Step 1: run bronze: nothing crashes, nothing is lost.
        QueryRunner.Result run = QueryRunner.run(new BronzeQuery(options.events()), options);

        // Step 2: six rows in bronze, as Spark's table: the three good ones, two rows of nulls
        // (not JSON, cut short) and the wrong-typed user_id null; the three lines quarantined.
        Warehouse warehouse = new Warehouse(options.warehouse());
        List<Event> bronze = new ArrayList<>();
        warehouse.rows(BronzeQuery.TABLE).forEach(r -> bronze.add(EventTables.fromRow(r)));
        assertThat(bronze)
                .containsExactlyInAnyOrder(
                        e0,
                        e1,
                        e4,
                        new Event(),
                        new Event(2L, null, "view", null, null),
                        new Event());
        assertQuarantined(warehouse, file);
        assertThat(run.lastProgress.path("numInputRows").asLong()).isEqualTo(6);
        assertThat(run.lastProgress.path("sources").path(0).path("numBadRows").asLong())
                .isEqualTo(3);
        assertThat(run.lastProgress.path("sink").path("numOutputRows").asLong()).isEqualTo(6);
    }

    @Test
    void withQuarantineOnlyBadLinesLandOnlyInTheQuarantine() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        Path file = landMixedFile(options);

        QueryRunner.Result run =
                QueryRunner.run(
                        new BronzeQuery(options.events(), false, BadLines.QUARANTINE_ONLY),
                        options);

        // The good lines are in bronze, the bad ones in the quarantine only.
        Warehouse warehouse = new Warehouse(options.warehouse());
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .extracting(row -> row.get(0))
                .containsExactly(0L, 1L, 4L);
        assertQuarantined(warehouse, file);
        assertThat(run.lastProgress.path("numInputRows").asLong()).isEqualTo(6);
        assertThat(run.lastProgress.path("sources").path(0).path("numBadRows").asLong())
                .isEqualTo(3);
        assertThat(run.lastProgress.path("sink").path("numOutputRows").asLong()).isEqualTo(3);
    }

    /** A file of 3 good lines and 3 bad ones (not JSON, a wrong type, cut short), a blank one. */
    private static Path landMixedFile(RunOptions options) throws Exception {
        Path file =
                Storage.localFile(options.events(), "a test file")
                        .toPath()
                        .resolve("batch_1")
                        .resolve("part-00000-broken-c000.json");
        Files.createDirectories(file.getParent());
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
        return file;
    }

    private static void assertQuarantined(Warehouse warehouse, Path file) {
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
    }
}
