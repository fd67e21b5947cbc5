package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.course.testing.Expected;
import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.cli.options.Values;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.RowValues;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.course.testing.Expected.MINUTE;

/**
 * {@code recompute} of a table whose query runs in update mode, as in the command block of
 * docs/command-line.md: win5 in append mode, {@code reset win5}, win5 in update mode, then {@code
 * recompute events_5min}. The live windows are in the SQL database; the warehouse table of the same
 * name is the append run's, emptied by the reset. The recompute used to write the rebuilt windows
 * into that emptied warehouse table and leave the SQL rows as they were.
 */
class RecomputeUpdateModeITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final long NO_WATERMARK = Long.MAX_VALUE;

    @TempDir Path base;

    private CliOutput ok(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--base", base.toString()));
        CliOutput o = CliOutput.of(all.toArray(String[]::new));
        assertThat(o.code()).as("%s: %s%s", all, o.out(), o.err()).isZero();
        return o;
    }

    /**
     * The base's default SQLite file, given as {@code --jdbc-url}: without it update mode MERGEs
     * into the Delta table; the commands that read it (recompute) find it by default.
     */
    private String sqlite() {
        return "jdbc:sqlite:" + base.resolve("warehouse").resolve("warehouse.db");
    }

    @Test
    void recomputeOfAnUpdateModeQueryRebuildsTheClosedWindowsInTheSqlDatabase() throws Exception {
        Database database = Database.sqliteIn(base.resolve("warehouse"));
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));

        // Step 1: 1000 events, bronze, win5 in append mode, reset, win5 in update mode; then the
        // late buy of topic 11.11, which the update-mode run drops (to events_5min_late).
        ok("land-events", "--batch", "1", "--start", "0");
        ok("land-events", "--batch", "2", "--start", "500");
        ok("run", "bronze", "--quiet");
        ok("run", "win5", "--quiet");
        ok("reset", "win5");
        ok("run", "win5", "--output-mode", "update", "--jdbc-url", sqlite(), "--quiet");
        LocalEventFiles.writeBatch(base.resolve("events"), 3, List.of(WindowITCase.LATE));
        ok("run", "bronze", "--quiet");
        ok("run", "win5", "--output-mode", "update", "--jdbc-url", sqlite(), "--quiet");
        List<Event> events = EventGenerator.events(0, 1000);
        List<List<Object>> streamed = database.rows("events_5min");
        assertThat(streamed)
                .containsExactlyElementsOf(
                        Expected.windows(events, 5 * MINUTE, 5 * MINUTE, false, NO_WATERMARK));
        assertThat(warehouse.count("events_5min")).as("emptied by the reset").isZero();

        // Step 2: recompute 00:00 to 00:30 from bronze: the late buy counts now, in the SQL table.
        CliOutput recompute =
                ok(
                        "recompute",
                        "events_5min",
                        "--from",
                        "2025-03-01T00:00:00Z",
                        "--to",
                        "2025-03-01T00:30:00Z");

        long cut = Values.timestamp("2025-03-01T00:30:00Z").toEpochMilli();
        List<Event> withLate = new ArrayList<>(events);
        withLate.add(WindowITCase.LATE);
        List<List<Object>> expected = new ArrayList<>();
        Expected.windows(withLate, 5 * MINUTE, 5 * MINUTE, false, cut).forEach(expected::add);
        streamed.stream()
                .filter(r -> ((Instant) r.get(1)).toEpochMilli() > cut)
                .forEach(expected::add);
        expected.sort(RowValues.ORDER);
        assertThat(recompute.out())
                .contains(
                        "events_5min: replaced 18 rows with 18 recomputed rows for windows in"
                                + " [2025-03-01T00:00:00.000Z, 2025-03-01T00:30:00.000Z) in the SQL"
                                + " database jdbc:sqlite:");
        assertThat(database.rows("events_5min")).containsExactlyElementsOf(expected);
        assertThat(expected).isNotEqualTo(streamed);
        assertThat(warehouse.count("events_5min")).as("the warehouse table untouched").isZero();

        // Step 3: the stream goes on from its checkpoint: the next batch's windows upserted beside.
        ok("land-events", "--batch", "4", "--start", "1000");
        ok("run", "bronze", "--quiet");
        ok("run", "win5", "--output-mode", "update", "--jdbc-url", sqlite(), "--quiet");
        List<List<Object>> after = database.rows("events_5min");
        assertThat(after)
                .filteredOn(r -> ((Instant) r.get(1)).toEpochMilli() <= cut)
                .containsExactlyElementsOf(
                        Expected.windows(withLate, 5 * MINUTE, 5 * MINUTE, false, cut));
        assertThat(after)
                .filteredOn(r -> ((Instant) r.get(1)).toEpochMilli() > cut)
                .containsExactlyElementsOf(
                        Expected.windows(
                                        EventGenerator.events(0, 1500),
                                        5 * MINUTE,
                                        5 * MINUTE,
                                        false,
                                        NO_WATERMARK)
                                .stream()
                                .filter(r -> ((Instant) r.get(1)).toEpochMilli() > cut)
                                .toList());
    }
}
