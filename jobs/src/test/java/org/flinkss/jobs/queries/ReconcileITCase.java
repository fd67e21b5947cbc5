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
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.course.testing.Expected.MINUTE;

/**
 * {@code reconcile events_5min} after the late event of topic 11.11 (issue 35, point 4): the window
 * the late buy missed is recomputed from bronze and replaced in one MERGE commit, so that the table
 * equals the windows of every event, the late one included, up to the stream's watermark; a second
 * reconcile commits nothing; the stream goes on after it. In update mode the table's change feed
 * shows the window's old and new row.
 */
class ReconcileITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private CliOutput ok(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--base", base.toString()));
        CliOutput o = CliOutput.of(all.toArray(String[]::new));
        assertThat(o.code()).as("%s: %s%s", all, o.out(), o.err()).isZero();
        return o;
    }

    /** Batches 1 and 2, then the late buy of topic 11.11 alone, each through bronze and win5. */
    private Warehouse streamWithTheLateEvent(String... win5Options) throws Exception {
        List<String> win5 = new ArrayList<>(List.of("run", "win5", "--quiet"));
        win5.addAll(List.of(win5Options));
        ok("land-events", "--batch", "1", "--start", "0");
        ok("land-events", "--batch", "2", "--start", "500");
        ok("run", "bronze", "--quiet");
        ok(win5.toArray(String[]::new));
        LocalEventFiles.writeBatch(base.resolve("events"), 3, List.of(WindowITCase.LATE));
        ok("run", "bronze", "--quiet");
        ok(win5.toArray(String[]::new));
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        assertThat(warehouse.count("events_5min_late")).as("the late buy, dropped").isEqualTo(1);
        return warehouse;
    }

    private static long lastWindowEnd(List<List<Object>> rows) {
        return rows.stream()
                .mapToLong(r -> ((Instant) r.get(1)).toEpochMilli())
                .max()
                .orElseThrow();
    }

    @Test
    void theLateEventIsFoldedIntoItsWindowOnceAndTheStreamGoesOn() throws Exception {
        Warehouse warehouse = streamWithTheLateEvent();
        List<List<Object>> before = warehouse.sortedValues("events_5min");
        long closed = lastWindowEnd(before);
        List<Event> events = EventGenerator.events(0, 1000);
        List<Event> withLate = new ArrayList<>(events);
        withLate.add(WindowITCase.LATE);
        assertThat(before)
                .as("the stream's windows, without the late buy")
                .containsExactlyElementsOf(
                        Expected.windows(events, 5 * MINUTE, 5 * MINUTE, false, closed));
        long version = warehouse.existing("events_5min").version();

        // Step 1: reconcile: the 00:00-00:05 window (its three event types) recomputed from bronze,
        // in one MERGE.
        CliOutput first = ok("reconcile", "events_5min");
        assertThat(first.out())
                .contains(
                        "events_5min: folded 1 late row(s) of events_5min_late (up to its version")
                .contains("into 1 window(s): replaced 3 rows with 3 recomputed rows, version");
        List<List<Object>> after = warehouse.sortedValues("events_5min");
        assertThat(after)
                .as("every event's windows up to the watermark, the late buy included")
                .containsExactlyElementsOf(
                        Expected.windows(withLate, 5 * MINUTE, 5 * MINUTE, false, closed));
        assertThat(after).isNotEqualTo(before);
        HistoryEntry commit = warehouse.existing("events_5min").history(1).get(0);
        assertThat(commit.version()).isEqualTo(version + 1);
        assertThat(commit.operation()).isEqualTo("MERGE");

        // Step 2: a second reconcile finds the late rows folded in and makes no commit.
        CliOutput second = ok("reconcile", "events_5min");
        assertThat(second.out())
                .contains(
                        "events_5min: nothing to reconcile: no late row of events_5min_late is"
                                + " left to fold in (its version 2)");
        assertThat(warehouse.existing("events_5min").version()).isEqualTo(version + 1);

        // Step 3: the stream goes on from its checkpoint; the reconciled window stays.
        ok("land-events", "--batch", "4", "--start", "1000");
        ok("run", "bronze", "--quiet");
        ok("run", "win5", "--quiet");
        List<List<Object>> later = warehouse.sortedValues("events_5min");
        List<Event> all = new ArrayList<>(EventGenerator.events(0, 1500));
        all.add(WindowITCase.LATE);
        assertThat(later)
                .containsExactlyElementsOf(
                        Expected.windows(all, 5 * MINUTE, 5 * MINUTE, false, lastWindowEnd(later)));
        assertThat(ok("reconcile", "events_5min").out()).contains("nothing to reconcile");
    }

    @Test
    void inUpdateModeTheChangeFeedHoldsTheChangedRowBeforeAndAfter() throws Exception {
        Warehouse warehouse = streamWithTheLateEvent("--output-mode", "update");
        long version = warehouse.existing("events_5min").version();

        ok("reconcile", "events_5min");

        CliOutput changes =
                ok(
                        "table",
                        "changes",
                        "events_5min",
                        "--from-version",
                        String.valueOf(version + 1));
        assertThat(changes.out())
                .contains("update_preimage")
                .contains("update_postimage")
                .doesNotContain("delete");
        assertThat(changes.out().lines().filter(l -> l.contains("update_")).count())
                .as("the late buy's row, old and new; the window's unchanged rows are not in it")
                .isEqualTo(2);

        // Sessions are refused before anything is read: a late event may join or split them.
        CliOutput sessions =
                CliOutput.of("reconcile", "events_sessions", "--base", base.toString());
        assertThat(sessions.code()).isNotZero();
        assertThat(sessions.err())
                .contains("a late event may join or split sessions of 'events_sessions'")
                .contains("recompute events_sessions --from");
    }
}
