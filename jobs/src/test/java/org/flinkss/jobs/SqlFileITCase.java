package org.flinkss.jobs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.jobs.queries.WindowITCase;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sql --file}: the course's win5 written as a SQL file gives the table {@code run win5}
 * gives, run after run, late and timeless rows included; a rerun with nothing new reads nothing; a
 * changed filter runs on its checkpoint and a changed window is refused, naming the change.
 */
class SqlFileITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    static final Path WIN5_SQL = project().resolve("examples/sql/win5.sql");

    @TempDir Path tmp;

    /** The project's folder (the tests run in the jobs module's). */
    static Path project() {
        Path here = Paths.get("").toAbsolutePath();
        return Files.exists(here.resolve("examples")) ? here : here.getParent();
    }

    static CliOutput ok(String... args) {
        CliOutput out = CliOutput.of(args);
        assertThat(out.code()).as(String.join(" ", args) + "\n" + out.out() + out.err()).isZero();
        return out;
    }

    /** The same events landed in both bases, each then run through bronze. */
    private static void land(Path a, Path b, int batch, List<Event> events) {
        for (Path base : List.of(a, b)) {
            LocalEventFiles.writeBatch(base.resolve("events"), batch, events);
            ok("run", "bronze", "--base", base.toString(), "--quiet");
        }
    }

    private static long dropped(Path base, String query) {
        long sum = 0;
        for (ObjectNode p :
                ProgressTracker.history(
                        CheckpointLayout.of(Storage.location(base.toFile()), query))) {
            for (var op : p.path("stateOperators")) {
                sum += op.path("numRowsDroppedByWatermark").asLong();
            }
        }
        return sum;
    }

    @Test
    void win5SqlFileGivesTheTableOfRunWin5RunAfterRun() {
        Path course = tmp.resolve("course");
        Path sql = tmp.resolve("sql");
        Warehouse courseTables =
                new Warehouse(Storage.location(course.resolve("warehouse").toFile()));
        Warehouse sqlTables = new Warehouse(Storage.location(sql.resolve("warehouse").toFile()));
        // An event without event time: run win5 drops it, and so must the SQL file's windows.
        Event timeless = new Event(88888L, 3, "view", null, 1.0);

        // Step 1: 1,000 events and a timeless one; both runs close the same windows.
        List<Event> first = new ArrayList<>(EventGenerator.events(0, 1000));
        first.add(timeless);
        land(course, sql, 1, first);
        ok("run", "win5", "--base", course.toString(), "--quiet");
        CliOutput run1 = ok("sql", "--file", WIN5_SQL.toString(), "--base", sql.toString());
        assertThat(run1.out()).contains("batch 1/1  1,001 rows", "win5: 1 batch");
        assertThat(sqlTables.sortedValues("events_5min"))
                .isNotEmpty()
                .containsExactlyElementsOf(courseTables.sortedValues("events_5min"));

        // Step 2: the course's late event alone in a batch, then 500 more: dropped and counted.
        land(course, sql, 2, List.of(WindowITCase.LATE));
        land(course, sql, 3, EventGenerator.events(1000, 500));
        ok("run", "win5", "--base", course.toString(), "--quiet");
        ok("sql", "--file", WIN5_SQL.toString(), "--base", sql.toString(), "--quiet");
        assertThat(sqlTables.sortedValues("events_5min"))
                .containsExactlyElementsOf(courseTables.sortedValues("events_5min"));
        // The late event, counted in progress; the timeless event is in no window and, as in
        // Spark (whose window() filters it out first), not counted; run win5 counts it too.
        assertThat(dropped(sql, "win5"))
                .as("rows dropped by the watermark, counted in progress")
                .isEqualTo(1);
        assertThat(dropped(course, "win5")).isEqualTo(2);

        // Step 3: a rerun with nothing new reads nothing and changes no table.
        long version = sqlTables.snapshot("events_5min").version();
        CliOutput rerun = ok("sql", "--file", WIN5_SQL.toString(), "--base", sql.toString());
        assertThat(rerun.out()).contains("win5: nothing new (0 rows read");
        assertThat(sqlTables.snapshot("events_5min").version()).isEqualTo(version);
    }

    private static String query(String where, String size) {
        return "CREATE TEMPORARY TABLE bronze (event_id BIGINT, event_type STRING,"
                + " event_ts TIMESTAMP_LTZ(3), amount DOUBLE,\n"
                + "  WATERMARK FOR event_ts AS event_ts - INTERVAL '10' MINUTE)\n"
                + "  WITH ('connector' = 'delta', 'table' = 'events_bronze');\n"
                + "CREATE TEMPORARY TABLE counts (window_start TIMESTAMP_LTZ(3), event_type STRING,"
                + " events BIGINT)\n"
                + "  WITH ('connector' = 'delta', 'table' = 'type_counts');\n"
                + "INSERT INTO counts\n"
                + "SELECT window_start, event_type, COUNT(*) AS events\n"
                + "FROM TABLE(TUMBLE(TABLE bronze, DESCRIPTOR(event_ts), INTERVAL '"
                + size
                + "' MINUTE))\n"
                + "WHERE "
                + where
                + "\nGROUP BY window_start, window_end, event_type;\n";
    }

    @Test
    void aChangedFilterRunsOnItsCheckpointAndAChangedWindowIsRefused() throws IOException {
        Path base = tmp.resolve("base");
        Path file = tmp.resolve("counts.sql");
        Warehouse tables = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 500));
        ok("run", "bronze", "--base", base.toString(), "--quiet");

        // Step 1: the query's first run.
        Files.writeString(file, query("amount > 10", "5"), StandardCharsets.UTF_8);
        ok("sql", "--file", file.toString(), "--base", base.toString(), "--quiet");
        long afterFirst = tables.count("type_counts");
        assertThat(afterFirst).isPositive();

        // Step 2: another filter (Spark allows it): the same checkpoint runs on with new data.
        LocalEventFiles.writeBatch(base.resolve("events"), 2, EventGenerator.events(500, 500));
        ok("run", "bronze", "--base", base.toString(), "--quiet");
        Files.writeString(file, query("amount > 20 AND event_type <> 'view'", "5"));
        CliOutput filtered =
                ok(
                        "sql",
                        "--file",
                        file.toString(),
                        "--base",
                        base.toString(),
                        "--progress",
                        "json");
        assertThat(filtered.out()).contains("\"numInputRows\" : 500");
        assertThat(tables.count("type_counts")).isGreaterThan(afterFirst);

        // Step 3: another window size is another state: refused in one line, nothing written.
        long version = tables.snapshot("type_counts").version();
        Files.writeString(file, query("amount > 20 AND event_type <> 'view'", "10"));
        CliOutput refused =
                CliOutput.of("sql", "--file", file.toString(), "--base", base.toString());
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err().strip().lines()).hasSize(1);
        assertThat(refused.err())
                .contains(file.toString(), "query 'counts' changed its state")
                .contains("size=[5 min]", "size=[10 min]")
                .contains("'reset counts'");
        assertThat(tables.snapshot("type_counts").version()).isEqualTo(version);

        // Step 4: progress and reset take the SQL query's name; after a reset the new window runs
        // over everything again.
        CliOutput progress = ok("progress", "counts", "--base", base.toString());
        assertThat(progress.out()).contains("\"name\" : \"counts\"", "\"batchId\" : 1");
        CliOutput reset = ok("reset", "counts", "--base", base.toString());
        assertThat(reset.out()).contains("counts: checkpoint deleted, tables emptied: type_counts");
        assertThat(tables.count("type_counts")).isZero();
        CliOutput again = ok("sql", "--file", file.toString(), "--base", base.toString());
        assertThat(again.out()).contains("1,000 rows");
        assertThat(tables.count("type_counts")).isPositive();
        assertThat(CliOutput.of("progress", "nothing-here", "--base", base.toString()).code())
                .isEqualTo(2);
    }

    @Test
    void landingFilesReadsTheLandingFolderAsBronzeDoesBadLinesQuarantined() throws IOException {
        Path base = tmp.resolve("landing");
        Path events = base.resolve("events");
        Warehouse tables = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        LocalEventFiles.writeBatch(events, 1, EventGenerator.events(0, 300));
        LocalEventFiles.writeBatch(events, 2, EventGenerator.events(300, 200));
        Files.createDirectories(events.resolve("batch_3"));
        Files.writeString(
                events.resolve("batch_3").resolve("bad.json"), "not json\n{\"event_id\": 7}\n");
        Path file = tmp.resolve("landing.sql");
        Files.writeString(
                file,
                "CREATE TEMPORARY TABLE landing (event_id BIGINT, user_id INT, event_type STRING,\n"
                        + "  event_ts TIMESTAMP_LTZ(6), amount DOUBLE)\n"
                        + "  WITH ('connector' = 'landing-files', 'path' = '"
                        + events
                        + "',\n"
                        + "        'quarantine-table' = 'landing_quarantine',"
                        + " 'max-files-per-trigger' = '1');\n"
                        + "CREATE TEMPORARY TABLE landed (event_id BIGINT, user_id INT, event_type"
                        + " STRING,\n"
                        + "  event_ts TIMESTAMP_LTZ(6), amount DOUBLE)\n"
                        + "  WITH ('connector' = 'delta', 'table' = 'landed');\n"
                        + "INSERT INTO landed SELECT * FROM landing;\n",
                StandardCharsets.UTF_8);

        // Step 1: bronze and the SQL file over the same three files, one file per batch for SQL.
        ok("run", "bronze", "--base", base.toString(), "--quiet");
        CliOutput sql = ok("sql", "--file", file.toString(), "--base", base.toString(), "--quiet");
        assertThat(sql.out()).contains("landing: 3 batches, 502 rows read");
        assertThat(tables.sortedValues("landed"))
                // 500 events, {"event_id": 7} with its other columns null, and the line that is
                // not JSON as a row of nulls (Spark's PERMISSIVE mode), as bronze has them.
                .hasSize(502)
                .containsExactlyElementsOf(tables.sortedValues("events_bronze"));
        assertThat(tables.count("landing_quarantine"))
                .isEqualTo(tables.count("events_bronze_quarantine"))
                .isEqualTo(1);

        // Step 2: a rerun reads nothing new.
        CliOutput rerun = ok("sql", "--file", file.toString(), "--base", base.toString());
        assertThat(rerun.out()).contains("landing: nothing new");
    }

    private static List<List<Object>> countsByType(List<Event> events) {
        return events.stream()
                .collect(
                        java.util.stream.Collectors.groupingBy(
                                e -> e.eventType,
                                java.util.TreeMap::new,
                                java.util.stream.Collectors.counting()))
                .entrySet()
                .stream()
                .map(e -> List.<Object>of(e.getKey(), e.getValue()))
                .toList();
    }

    @Test
    void anAggregationWithoutAWindowReplacesItsTableInCompleteModeReadingBronzeByPath()
            throws IOException {
        Path base = tmp.resolve("complete");
        Warehouse tables = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 500));
        ok("run", "bronze", "--base", base.toString(), "--quiet");
        Path file = tmp.resolve("totals.sql");
        Files.writeString(
                file,
                "CREATE TEMPORARY TABLE bronze (event_type STRING, amount DOUBLE)\n"
                        + "  WITH ('connector' = 'delta', 'path' = '"
                        + base.resolve("warehouse").resolve("events_bronze").toUri()
                        + "');\n"
                        + "CREATE TEMPORARY TABLE totals (event_type STRING, events BIGINT,\n"
                        + "  PRIMARY KEY (event_type) NOT ENFORCED)\n"
                        + "  WITH ('connector' = 'delta', 'table' = 'type_totals',"
                        + " 'sink.mode' = 'complete');\n"
                        + "INSERT INTO totals SELECT event_type, COUNT(*) FROM bronze"
                        + " GROUP BY event_type;\n",
                StandardCharsets.UTF_8);

        // Step 1: the whole result of 500 events.
        ok("sql", "--file", file.toString(), "--base", base.toString(), "--quiet");
        assertThat(tables.sortedValues("type_totals"))
                .containsExactlyElementsOf(countsByType(EventGenerator.events(0, 500)));

        // Step 2: 500 more: the table is replaced by the totals of all 1,000, not appended to.
        LocalEventFiles.writeBatch(base.resolve("events"), 2, EventGenerator.events(500, 500));
        ok("run", "bronze", "--base", base.toString(), "--quiet");
        ok("sql", "--file", file.toString(), "--base", base.toString(), "--quiet");
        assertThat(tables.sortedValues("type_totals"))
                .containsExactlyElementsOf(countsByType(EventGenerator.events(0, 1000)));
    }
}
