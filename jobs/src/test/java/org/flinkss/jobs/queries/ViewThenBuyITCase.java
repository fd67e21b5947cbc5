package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

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
import org.flinkss.course.queries.ViewThenBuyQuery;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.RowValues;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.course.testing.Expected.MINUTE;

/** Topic 11.09: the stream-stream interval join of views and buys, inner and left outer. */
class ViewThenBuyITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    static final long BOUND = 5 * MINUTE;

    @TempDir Path base;

    /**
     * Spark's result: every pair; with outer, each unmatched view whose range ended by the
     * watermark.
     */
    static List<List<Object>> expected(List<Event> events, long watermark, boolean outer) {
        List<List<Object>> rows = new ArrayList<>();
        for (Event v : events) {
            if (!"view".equals(v.eventType)) {
                continue;
            }
            long vt = v.eventTs.toEpochMilli();
            boolean matched = false;
            for (Event b : events) {
                long bt = b.eventTs.toEpochMilli();
                if ("buy".equals(b.eventType)
                        && b.userId.equals(v.userId)
                        && bt >= vt
                        && bt <= vt + BOUND) {
                    rows.add(Arrays.asList(v.userId, v.eventId, b.eventId));
                    matched = true;
                }
            }
            // Spark writes the null row once the watermark is strictly past the range's end: a
            // buy at exactly view + 5 min can still match (issue 13 point 3).
            if (outer && !matched && vt + BOUND < watermark) {
                rows.add(Arrays.asList(v.userId, v.eventId, null));
            }
        }
        rows.sort(RowValues.ORDER);
        return rows;
    }

    /**
     * The join's watermark after one run over {@code events}: Spark's minimum of the views' and the
     * buys' watermarks, each the newest event time of its side - 10 minutes (issue 13 point 1).
     */
    static long joinWatermark(List<Event> events) {
        long views = Long.MIN_VALUE;
        long buys = Long.MIN_VALUE;
        for (Event e : events) {
            long t = e.eventTs.toEpochMilli();
            if ("view".equals(e.eventType)) {
                views = Math.max(views, t);
            } else if ("buy".equals(e.eventType)) {
                buys = Math.max(buys, t);
            }
        }
        return Math.min(views, buys) - 10 * MINUTE;
    }

    private static void land(RunOptions options, int... batches) {
        for (int batch : batches) {
            List<Event> events =
                    batch == 3
                            ? List.of(WindowITCase.LATE)
                            : EventGenerator.events(batch == 4 ? 1000 : (batch - 1) * 500L, 500);
            EventFiles.writeBatch(options.events(), batch, events);
        }
    }

    private static List<List<Object>> run(ViewThenBuyQuery query, RunOptions options) {
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(query, options);
        return new Warehouse(options.warehouse()).sortedValues(query.table());
    }

    @Test
    void allFourCourseBatchesInOneRunOrInTwoRunsGiveTheSameInnerJoin() {
        RunOptions oneRun = BronzeITCase.options(base.resolve("one"), 2);
        land(oneRun, 1, 2, 3, 4);
        List<List<Object>> once = run(new ViewThenBuyQuery(false, Api.DATASTREAM), oneRun);

        RunOptions twoRuns = BronzeITCase.options(base.resolve("two"), 2);
        land(twoRuns, 1, 2);
        run(new ViewThenBuyQuery(false, Api.DATASTREAM), twoRuns);
        land(twoRuns, 3, 4);
        List<List<Object>> twice = run(new ViewThenBuyQuery(false, Api.DATASTREAM), twoRuns);

        List<Event> all = EventGenerator.events(0, 1500);
        assertThat(once)
                .isNotEmpty()
                .containsExactlyElementsOf(expected(all, Long.MIN_VALUE, false));
        assertThat(twice).containsExactlyElementsOf(once);
        // The late buy of batch 3 is counted as dropped in the second of the two runs.
        assertThat(new Warehouse(twoRuns.warehouse()).count("view_then_buy_late")).isEqualTo(1);
    }

    @Test
    void unmatchedViewsAppearOnceWithANullBuyOnlyAfterTheWatermarkPassesTheirRange() {
        RunOptions options = BronzeITCase.options(base, 2);
        ViewThenBuyQuery outer = new ViewThenBuyQuery(true, Api.DATASTREAM);
        land(options, 1, 2);
        List<List<Object>> first = run(outer, options);
        List<Event> firstEvents = EventGenerator.events(0, 1000);
        long watermark1 = joinWatermark(firstEvents);
        assertThat(first).containsExactlyElementsOf(expected(firstEvents, watermark1, true));

        land(options, 3, 4);
        List<List<Object>> second = run(outer, options);
        List<Event> all = EventGenerator.events(0, 1500);
        assertThat(second).containsExactlyElementsOf(expected(all, joinWatermark(all), true));
        // Spark's table after the course's four batches (its watermark is the buys' 03:59:30,
        // not all events' 03:59:50).
        assertThat(second).hasSize(495);
        // A view gets a null row at most once, and never if it matched.
        assertThat(
                        second.stream()
                                .filter(r -> r.get(2) == null)
                                .map(r -> r.get(1))
                                .distinct()
                                .count())
                .isEqualTo(second.stream().filter(r -> r.get(2) == null).count());
        assertThat(second)
                .filteredOn(r -> r.get(2) == null)
                .noneMatch(
                        n ->
                                second.stream()
                                        .anyMatch(
                                                r ->
                                                        r.get(1).equals(n.get(1))
                                                                && r.get(2) != null));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theDataStreamAndTableApisWriteIdenticalTables(boolean outer) {
        List<List<List<Object>>> tables = new ArrayList<>();
        for (Api api : Api.values()) {
            RunOptions options = BronzeITCase.options(base.resolve(api.text()), 2);
            land(options, 1, 2);
            run(new ViewThenBuyQuery(outer, api), options);
            land(options, 3, 4);
            tables.add(run(new ViewThenBuyQuery(outer, api), options));
        }
        assertThat(tables.get(0)).isNotEmpty();
        assertThat(tables.get(1)).containsExactlyElementsOf(tables.get(0));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void theSameJoinAtAnyParallelism(int parallelism) {
        RunOptions options = BronzeITCase.options(base, parallelism);
        land(options, 1, 2);
        run(new ViewThenBuyQuery(true, Api.DATASTREAM), options);
        land(options, 4);
        List<List<Object>> table = run(new ViewThenBuyQuery(true, Api.DATASTREAM), options);
        List<Event> all = EventGenerator.events(0, 1500);
        assertThat(table).containsExactlyElementsOf(expected(all, joinWatermark(all), true));
    }

    @Test
    void joinStateIsEvictedByTheWatermark() {
        RunOptions options = BronzeITCase.options(base, 2);
        List<Long> held = new ArrayList<>();
        for (int batch = 1; batch <= 6; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
            QueryRunner.run(new BronzeQuery(options.events()), options);
            QueryRunner.Result result =
                    QueryRunner.run(new ViewThenBuyQuery(false, Api.DATASTREAM), options);
            held.add(
                    result.lastProgress
                            .path("stateOperators")
                            .path(0)
                            .path("numRowsTotal")
                            .asLong());
        }
        // Views live 15 minutes and buys 10 minutes of event time behind the newest event: < 100
        // rows.
        assertThat(held).allSatisfy(h -> assertThat(h).isBetween(10L, 100L));
    }
}
