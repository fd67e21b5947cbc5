package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeITCase;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.course.recompute.Recompute;
import org.flinkss.course.testing.Expected;
import org.flinkss.jobs.cli.options.Values;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.RowValues;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.course.testing.Expected.MINUTE;

/** Course topics 11.07, 11.10 and 11.11: watermarks, windows and late data, run by run. */
public class WindowITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /** The late event of topic 11.11: event time 2025-03-01 00:01, it arrives with batch 3. */
    public static final Event LATE =
            new Event(99999L, 7, "buy", Instant.parse("2025-03-01T00:01:00Z"), 12.5);

    public static final long DELAY = 10 * MINUTE;

    @TempDir Path base;

    private RunOptions options(Path dir, int parallelism) {
        return BronzeITCase.options(dir, parallelism);
    }

    private static QueryRunner.Result run(WindowQuery query, RunOptions options) {
        QueryRunner.run(new BronzeQuery(options.events()), options);
        return QueryRunner.run(query, options);
    }

    private static long droppedByWatermark(ObjectNode progress) {
        return progress.path("stateOperators").path(0).path("numRowsDroppedByWatermark").asLong();
    }

    private static long watermarkAfter(ObjectNode progress) {
        return progress.path("sources").path(0).path("watermarkAfter").asLong();
    }

    @Test
    void courseScenarioWritesClosedWindowsOnlyAndDropsTheLateEvent() {
        RunOptions options = options(base, 2);
        Warehouse warehouse = new Warehouse(options.warehouse());
        List<Event> first = EventGenerator.events(0, 1000);
        List<Event> all = EventGenerator.events(0, 1500);

        // Step 1: batches 1 and 2, bronze then win5: the windows that ended by max(event_ts) - 10
        // min.
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.Result run1 = run(WindowQuery.win5(Api.DATASTREAM), options);
        long watermark1 = Expected.maxEventTime(first) - DELAY;
        assertThat(watermarkAfter(run1.lastProgress)).isEqualTo(watermark1);
        List<List<Object>> expected1 =
                Expected.windows(first, 5 * MINUTE, 5 * MINUTE, false, watermark1);
        assertThat(expected1).hasSize(31 * 3);
        assertThat(warehouse.sortedValues("events_5min")).containsExactlyElementsOf(expected1);
        assertThat(droppedByWatermark(run1.lastProgress)).isZero();

        // Step 2: the late event as batch 3, batch 4 (ids 1000..1499); bronze keeps everything.
        EventFiles.writeBatch(options.events(), 3, List.of(LATE));
        EventFiles.writeBatch(options.events(), 4, EventGenerator.events(1000, 500));
        QueryRunner.Result run2 = run(WindowQuery.win5(Api.DATASTREAM), options);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(1501);

        // Step 3: the windows batch 4 closed appear, whole; the late event is dropped and counted
        // once.
        long watermark2 = Expected.maxEventTime(all) - DELAY;
        assertThat(run2.lastProgress.path("eventTime").path("watermark").asText())
                .isEqualTo("2025-03-01T02:36:30.000Z");
        assertThat(watermarkAfter(run2.lastProgress)).isEqualTo(watermark2);
        assertThat(warehouse.sortedValues("events_5min"))
                .containsExactlyElementsOf(
                        Expected.windows(all, 5 * MINUTE, 5 * MINUTE, false, watermark2));
        assertThat(droppedByWatermark(run2.lastProgress)).isEqualTo(1);
        List<List<Object>> late = warehouse.sortedValues("events_5min_late");
        assertThat(late).hasSize(1);
        assertThat(late.get(0).subList(0, 6))
                .containsExactly(
                        99999L, 7, "buy", LATE.eventTs, 12.5, Instant.ofEpochMilli(watermark1));
    }

    @Test
    void recomputeFromBronzeRebuildsClosedWindowsWithTheLateEventAndLeavesTheStreamAlone() {
        RunOptions options = options(base, 2);
        Warehouse warehouse = new Warehouse(options.warehouse());
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        run(WindowQuery.win5(Api.DATASTREAM), options);
        EventFiles.writeBatch(options.events(), 3, List.of(LATE));
        run(WindowQuery.win5(Api.DATASTREAM), options);
        List<List<Object>> streamed = warehouse.sortedValues("events_5min");

        // Step 1: rebuild 00:00 to 00:30 from bronze, as a batch job: the late buy counts now.
        Recompute.Result result =
                Recompute.recompute(
                        warehouse,
                        null,
                        options.base(),
                        "events_5min",
                        Values.timestamp("2025-03-01T00:00:00Z").toEpochMilli(),
                        Values.timestamp("2025-03-01 00:30:00").toEpochMilli());

        List<Event> withLate = new ArrayList<>(EventGenerator.events(0, 1000));
        withLate.add(LATE);
        long watermark = Expected.maxEventTime(EventGenerator.events(0, 1000)) - DELAY;
        List<List<Object>> exact =
                Expected.windows(withLate, 5 * MINUTE, 5 * MINUTE, false, watermark);
        assertThat(result.removed).isEqualTo(6 * 3);
        assertThat(result.written).isEqualTo(6 * 3);
        assertThat(warehouse.sortedValues("events_5min")).containsExactlyElementsOf(exact);
        assertThat(exact).isNotEqualTo(streamed);

        // The late table holds events, not windows: refused in one line naming its windowed
        // table (it was a ClassCastException), and neither table changes.
        List<List<Object>> late = warehouse.sortedValues("events_5min_late");
        assertThatThrownBy(
                        () ->
                                Recompute.recompute(
                                        warehouse,
                                        null,
                                        options.base(),
                                        "events_5min_late",
                                        Values.timestamp("2025-03-01T00:00:00Z").toEpochMilli(),
                                        Values.timestamp("2025-03-01T00:30:00Z").toEpochMilli()))
                .isInstanceOf(QueryException.class)
                .hasMessage(
                        "table 'events_5min_late' holds the events query 'win5' dropped as late"
                                + " from 'events_5min', not windows: nothing to recompute in it;"
                                + " recompute 'events_5min' instead (its windows are rebuilt from"
                                + " events_bronze, late events included)");
        assertThat(warehouse.sortedValues("events_5min_late")).isEqualTo(late).hasSize(1);
        assertThat(warehouse.sortedValues("events_5min")).containsExactlyElementsOf(exact);

        // Step 2: the stream goes on from its own checkpoint: nothing written twice.
        EventFiles.writeBatch(options.events(), 4, EventGenerator.events(1000, 500));
        run(WindowQuery.win5(Api.DATASTREAM), options);
        List<Event> all = new ArrayList<>(EventGenerator.events(0, 1500));
        List<List<Object>> expected =
                new ArrayList<>(
                        Expected.windows(
                                all,
                                5 * MINUTE,
                                5 * MINUTE,
                                false,
                                Expected.maxEventTime(all) - DELAY));
        all.add(LATE);
        List<List<Object>> rebuilt =
                Expected.windows(
                        all, 5 * MINUTE, 5 * MINUTE, false, Expected.maxEventTime(all) - DELAY);
        // Windows up to 00:30 as recomputed (with the late buy), later ones as the stream wrote
        // them.
        long cut = Values.timestamp("2025-03-01T00:30:00Z").toEpochMilli();
        List<List<Object>> expectedAfter = new ArrayList<>();
        rebuilt.stream()
                .filter(r -> ((Instant) r.get(1)).toEpochMilli() <= cut)
                .forEach(expectedAfter::add);
        expected.stream()
                .filter(r -> ((Instant) r.get(1)).toEpochMilli() > cut)
                .forEach(expectedAfter::add);
        expectedAfter.sort(RowValues.ORDER);
        assertThat(warehouse.sortedValues("events_5min")).containsExactlyElementsOf(expectedAfter);
    }

    @Test
    void theWatermarkSurvivesARestartSoALateEventAloneInItsRunIsDropped() {
        RunOptions options = options(base, 2);
        Warehouse warehouse = new Warehouse(options.warehouse());
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        run(WindowQuery.win5(Api.DATASTREAM), options);
        List<List<Object>> before = warehouse.sortedValues("events_5min");

        // The late event alone, in a run of its own: a new Flink job, restored from the savepoint.
        EventFiles.writeBatch(options.events(), 3, List.of(LATE));
        QueryRunner.Result alone = run(WindowQuery.win5(Api.DATASTREAM), options);

        assertThat(alone.lastProgress.path("numInputRows").asLong()).isEqualTo(1);
        assertThat(droppedByWatermark(alone.lastProgress)).isEqualTo(1);
        assertThat(warehouse.sortedValues("events_5min")).containsExactlyElementsOf(before);
        assertThat(warehouse.count("events_5min_late")).isEqualTo(1);
    }

    @Test
    void noRunFlushesOpenWindowsAndStateFallsBackAsWindowsClose() {
        RunOptions options = options(base, 2);
        Warehouse warehouse = new Warehouse(options.warehouse());
        List<Long> heldAfterEachRun = new ArrayList<>();
        for (int batch = 1; batch <= 8; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
            QueryRunner.Result result = run(WindowQuery.win5(Api.DATASTREAM), options);
            long watermark = watermarkAfter(result.lastProgress);
            // Every window in the table has ended by the watermark; none is missing.
            List<List<Object>> table = warehouse.sortedValues("events_5min");
            assertThat(table)
                    .allSatisfy(
                            row ->
                                    assertThat(((Instant) row.get(1)).toEpochMilli())
                                            .isLessThanOrEqualTo(watermark));
            assertThat(table)
                    .containsExactlyElementsOf(
                            Expected.windows(
                                    EventGenerator.events(0, batch * 500),
                                    5 * MINUTE,
                                    5 * MINUTE,
                                    false,
                                    watermark));
            heldAfterEachRun.add(
                    result.lastProgress
                            .path("stateOperators")
                            .path(0)
                            .path("numRowsTotal")
                            .asLong());
        }
        // 500 events span 83 minutes; the 10-minute watermark keeps 3 windows of each of 3 types
        // open.
        assertThat(heldAfterEachRun).allSatisfy(held -> assertThat(held).isBetween(1L, 12L));
        assertThat(warehouse.count("events_5min")).isGreaterThan(8 * 12 * 3 - 12);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void sameTablesAtAnyParallelismWhateverTheOrderFilesAreReadIn(int parallelism) {
        RunOptions options = options(base.resolve("p" + parallelism), parallelism);
        // Folder names sort against event time: batch_1 holds the newest events, batch_3 the
        // oldest.
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(1000, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        EventFiles.writeBatch(options.events(), 3, EventGenerator.events(0, 500));
        QueryRunner.Result result = run(WindowQuery.win5(Api.DATASTREAM), options);

        List<Event> all = EventGenerator.events(0, 1500);
        // Everything arrives in one batch: the watermark in force is none, nothing is dropped.
        assertThat(droppedByWatermark(result.lastProgress)).isZero();
        assertThat(new Warehouse(options.warehouse()).sortedValues("events_5min"))
                .containsExactlyElementsOf(
                        Expected.windows(
                                all,
                                5 * MINUTE,
                                5 * MINUTE,
                                false,
                                Expected.maxEventTime(all) - DELAY));
    }

    @Test
    void outOfOrderEventsInsideABatchArePlacedByEventTime() {
        RunOptions options = options(base, 2);
        List<Event> shuffled = new ArrayList<>(EventGenerator.events(0, 1000));
        Collections.shuffle(shuffled, new Random(11));
        EventFiles.writeBatch(options.events(), 1, shuffled);

        run(WindowQuery.win5(Api.DATASTREAM), options);

        List<Event> sorted = EventGenerator.events(0, 1000);
        assertThat(new Warehouse(options.warehouse()).sortedValues("events_5min"))
                .containsExactlyElementsOf(
                        Expected.windows(
                                sorted,
                                5 * MINUTE,
                                5 * MINUTE,
                                false,
                                Expected.maxEventTime(sorted) - DELAY));
    }

    @ParameterizedTest
    @ValueSource(strings = {"win5", "sliding", "sessions"})
    void theDataStreamAndTableApisWriteIdenticalTables(String name) {
        List<List<List<Object>>> tables = new ArrayList<>();
        List<List<List<Object>>> lates = new ArrayList<>();
        for (Api api : Api.values()) {
            RunOptions options = options(base.resolve(api.text()), 2);
            WindowQuery query = (WindowQuery) QueryCatalog.named(name).create(options, api);
            EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
            EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
            run(query, options);
            EventFiles.writeBatch(options.events(), 3, List.of(LATE));
            EventFiles.writeBatch(options.events(), 4, EventGenerator.events(1000, 500));
            run(query, options);
            Warehouse warehouse = new Warehouse(options.warehouse());
            tables.add(warehouse.sortedValues(query.table()));
            lates.add(warehouse.sortedValues(query.table() + "_late"));
        }
        List<Event> all = EventGenerator.events(0, 1500);
        long watermark = Expected.maxEventTime(all) - DELAY;
        List<List<Object>> expected =
                name.equals("sessions")
                        ? Expected.sessions(all, 2 * MINUTE, watermark)
                        : Expected.windows(
                                all,
                                name.equals("sliding") ? 10 * MINUTE : 5 * MINUTE,
                                5 * MINUTE,
                                false,
                                watermark);
        assertThat(tables.get(0)).isNotEmpty().containsExactlyElementsOf(expected);
        assertThat(tables.get(1)).containsExactlyElementsOf(tables.get(0));
        assertThat(lates.get(0)).hasSize(1);
        assertThat(lates.get(1))
                .extracting(r -> r.subList(0, 7))
                .containsExactlyElementsOf(
                        lates.get(0).stream().map(r -> r.subList(0, 7)).toList());
    }
}
