package org.flinkss.course.operators;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.operators.NullableKey;
import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.time.Watermarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ViewThenBuyJoin} in Flink's keyed two-input operator harness: views on input 1, buys on
 * input 2, keyed by user, {@code buy.event_ts BETWEEN view.event_ts AND view.event_ts + 5 minutes}.
 * After each row and each of Spark's watermarks: the joined rows, the views and buys it holds (its
 * keyed state) and its timers.
 */
class ViewThenBuyJoinTest {

    private static final long BOUND = Duration.ofMinutes(5).toMillis();
    private static final int USER = 7;

    /** The output rows: user_id, view_id, buy_id. */
    private static final RowDataSerializer ROWS =
            new RowDataSerializer(new IntType(), new BigIntType(), new BigIntType());

    @TempDir Path base;

    private final List<KeyedTwoInputStreamOperatorTestHarness<NullableKey, Event, Event, RowData>>
            open = new ArrayList<>();

    private RunScope scope() {
        return new RunScope(
                CheckpointLayout.of(Storage.location(base.toFile()), "view_then_buy"), "run-1");
    }

    @AfterEach
    void close() throws Exception {
        for (var harness : open) {
            harness.close();
        }
    }

    @Test
    void aBuyFromTheViewsTimeUpToFiveMinutesLaterJoinsIt() throws Exception {
        var h = harness(false, null);

        view(h, 1, "01:00");
        buy(h, 2, "01:05");
        buy(h, 3, "01:05:00.001");
        buy(h, 4, "00:59:59.999");
        buy(h, 5, "01:00");
        buy(h, 6, "01:20");
        // A view that arrives after its buy joins it too.
        view(h, 8, "01:17");
        buyOf(h, USER + 1, 9, "01:01");

        assertThat(drain(h)).containsExactly("7 1 2", "7 1 5", "7 8 6");
    }

    @Test
    void theRangeIsComparedOnMicrosecondsAsSparkComparesIt() throws Exception {
        var h = harness(false, null);

        view(h, 1, "01:00:00.000123");
        buy(h, 2, "01:05:00.000123"); // exactly 5 minutes after, to the microsecond: matches
        buy(h, 3, "01:05:00.000124"); // 1 us later, same millisecond: does not
        buy(h, 4, "01:00:00.000122"); // 1 us before the view, same millisecond: does not
        buy(h, 5, "01:00:00.000123"); // at the view: matches
        // A view that arrives after its buy: the same range.
        buy(h, 6, "02:05:00.000500");
        view(h, 7, "02:00:00.000500"); // buy exactly view + 5 min: matches
        view(h, 8, "02:00:00.000501"); // buy 1 us less than 5 min after: matches
        view(h, 9, "02:00:00.000499"); // buy 1 us more than 5 min after: does not

        assertThat(drain(h)).containsExactly("7 1 2", "7 1 5", "7 7 6", "7 8 6");
        assertThat(views(h))
                .contains(
                        "7: view 1 at 01:00:00.000123 matched",
                        "7: view 9 at 02:00:00.000499 unmatched");
    }

    @Test
    void aViewsNullRowIsDueOnceTheWatermarkTimesAThousandIsPastItsMicrosecondsPlusFiveMinutes()
            throws Exception {
        var h = harness(true, null);
        view(h, 1, "01:00:00.000500");
        view(h, 2, "01:00:00.000400");

        // Spark: 01:05:00.000 * 1000 is not past 01:05:00.000500, nor 01:05:00.000400.
        watermark(h, "01:05");
        assertThat(drain(h)).isEmpty();
        // A buy after that watermark is on time and may still match: view 1 exactly.
        buy(h, 3, "01:05:00.000500");
        assertThat(drain(h)).containsExactly("7 1 3");

        watermark(h, "01:05:00.001");
        assertThat(drain(h)).containsExactly("7 2 null");
        assertThat(views(h)).isEmpty();
    }

    @Test
    void aBuyWithMicrosecondsIsKeptUntilTheWatermarkTimesAThousandReachesIt() throws Exception {
        var h = harness(false, null);
        buy(h, 1, "01:03:00.000500");

        // At watermark 01:03:00.000 a view at 01:03:00.000200 is on time and matches the buy.
        watermark(h, "01:03");
        assertThat(buys(h)).containsExactly("7: buy 1 at 01:03:00.000500");
        view(h, 2, "01:03:00.000200");
        assertThat(drain(h)).containsExactly("7 2 1");

        watermark(h, "01:03:00.001");
        assertThat(buys(h)).isEmpty();
    }

    @Test
    void viewsInMicrosecondsComeBackFromASnapshot() throws Exception {
        var before = harness(true, null);
        view(before, 1, "01:00:00.000500");
        view(before, 2, "01:00:00.000500");
        OperatorSubtaskState snapshot = before.snapshot(1, 0);

        var after = harness(true, snapshot);
        assertThat(views(after))
                .containsExactly(
                        "7: view 1 at 01:00:00.000500 unmatched",
                        "7: view 2 at 01:00:00.000500 unmatched");
        buy(after, 3, "01:05:00.000501");
        assertThat(drain(after)).isEmpty();
        buy(after, 4, "01:05:00.000500");
        assertThat(drain(after)).containsExactly("7 1 4", "7 2 4");
        watermark(after, "01:05:00.001");
        assertThat(drain(after)).isEmpty();
        assertThat(views(after)).isEmpty();
    }

    @Test
    void anUnmatchedViewComesOutWithANullBuyWhenTheWatermarkIsPastItsTimePlusFiveMinutes()
            throws Exception {
        var h = harness(true, null);
        view(h, 1, "01:00");
        view(h, 2, "01:01");
        buy(h, 3, "01:06");
        assertThat(drain(h)).containsExactly("7 2 3");

        watermark(h, "01:04:59.999");
        assertThat(drain(h)).isEmpty();

        // Issue 13 point 3: Spark emits the null row only once its watermark is strictly past
        // 01:05:00 (the BETWEEN is inclusive).
        watermark(h, "01:05");
        assertThat(drain(h)).isEmpty();
        watermark(h, "01:05:00.001");
        assertThat(drain(h)).containsExactly("7 1 null");

        watermark(h, "01:10");
        assertThat(drain(h)).as("a view that matched never comes out with null").isEmpty();
    }

    @Test
    void aViewWithoutAUserMatchesNothingAndComesOutUnmatchedWithANullUser() throws Exception {
        // Spark's v.user_id = b.user_id never holds for a null: the outer join writes the view
        // with a null user_id and a null buy_id once the watermark is past its range.
        var h = harness(true, null);
        h.processElement1(
                new Event(1L, null, "view", Instant.ofEpochMilli(at("01:00")), null), at("01:00"));
        buy(h, 2, "01:01");
        assertThat(drain(h)).isEmpty();

        watermark(h, "01:05:00.001");
        assertThat(drain(h)).containsExactly("null 1 null");
    }

    /**
     * Issue 37 point 5: the null user is no user id. A buy of user -2147483648 (the id that stood
     * for null) joins that user's view, not the view without a user, and the result says its user.
     */
    @Test
    void aViewWithoutAUserNeverJoinsABuyOfUserMinusTwoToThe31() throws Exception {
        var h = harness(true, null);
        Instant t = Instant.ofEpochMilli(at("01:00"));
        h.processElement1(new Event(1L, null, "view", t, null), at("01:00"));
        h.processElement1(new Event(2L, Integer.MIN_VALUE, "view", t, null), at("01:00"));
        buyOf(h, Integer.MIN_VALUE, 3, "01:01");

        assertThat(drain(h)).containsExactly("-2147483648 2 3");
        assertThat(views(h))
                .containsExactly(
                        "-2147483648: view 2 at 01:00:00 matched",
                        "NULL: view 1 at 01:00:00 unmatched");

        watermark(h, "01:05:00.001");
        assertThat(drain(h)).containsExactly("null 1 null");
    }

    /** Issue 37: a view and a buy without an event_id join, and come out with null ids. */
    @Test
    void rowsWithoutAnIdJoinAndComeOutWithANullIdNotAStandIn() throws Exception {
        var h = harness(true, null);
        Instant t = Instant.ofEpochMilli(at("01:00"));
        h.processElement1(new Event(null, USER, "view", t, null), at("01:00"));
        h.processElement2(new Event(null, USER, "buy", t.plusSeconds(60), 1.0), at("01:01"));
        h.processElement1(new Event(null, USER, "view", t.plusSeconds(600), null), at("01:10"));

        assertThat(drain(h)).containsExactly("7 null null");
        watermark(h, "01:15:00.001");
        assertThat(drain(h)).containsExactly("7 null null");
    }

    @Test
    void theInnerJoinNeverWritesNullRows() throws Exception {
        var h = harness(false, null);
        view(h, 1, "01:00");

        watermark(h, "02:00");

        assertThat(drain(h)).isEmpty();
        assertThat(views(h)).isEmpty();
    }

    @Test
    void theWatermarkBoundsTheStateViewsUntilPastTheirTimePlusFiveMinutesBuysUntilTheirTime()
            throws Exception {
        var h = harness(true, null);
        view(h, 1, "01:00");
        buy(h, 2, "01:03");
        assertThat(views(h)).containsExactly("7: view 1 at 01:00:00 matched");
        assertThat(buys(h)).containsExactly("7: buy 2 at 01:03:00");
        assertThat(h.numEventTimeTimers()).isEqualTo(2);

        // No later view can match a buy once the watermark reaches it: such a view is late.
        watermark(h, "01:03");
        assertThat(buys(h)).isEmpty();
        assertThat(views(h)).containsExactly("7: view 1 at 01:00:00 matched");
        assertThat(h.numEventTimeTimers()).isEqualTo(1);

        // Issue 13 point 3: Spark keeps the view until its watermark is strictly past 01:05:00.
        watermark(h, "01:05");
        assertThat(views(h)).containsExactly("7: view 1 at 01:00:00 matched");
        watermark(h, "01:05:00.001");
        assertThat(views(h)).isEmpty();
        assertThat(h.numEventTimeTimers()).isZero();
        assertThat(h.numKeyedStateEntries()).isZero();
    }

    @Test
    void aViewLandedTwiceJoinsItsBuyTwiceAndComesOutTwiceUnmatched() throws Exception {
        // Every input row counts: the join does not deduplicate (the Table API's
        // ViewThenBuyFunction neither, issue 13 point 4: spark-diff checks it).
        var h = harness(true, null);
        view(h, 1, "01:00");
        view(h, 1, "01:00");
        buy(h, 2, "01:01");
        view(h, 3, "01:10");
        view(h, 3, "01:10");

        // Spark counts every row it appends to the join state as updated, a repeated id too.
        h.snapshot(1, 0);
        assertThat(stateRows(1)).isEqualTo(new Fragment.StateRows("join", 0, 5, 5));

        watermark(h, "01:16");

        assertThat(drain(h)).containsExactly("7 1 2", "7 1 2", "7 3 null", "7 3 null");
    }

    @Test
    void aSnapshotReportsTheRowsHeldAndThoseAddedSinceTheLastOne() throws Exception {
        var h = harness(true, null);
        view(h, 1, "01:00");
        view(h, 2, "01:01");
        buy(h, 3, "01:02");

        h.snapshot(1, 0);
        assertThat(stateRows(1)).isEqualTo(new Fragment.StateRows("join", 0, 3, 3));

        watermark(h, "01:05:30");
        h.snapshot(2, 0);
        assertThat(stateRows(2)).isEqualTo(new Fragment.StateRows("join", 0, 1, 0));
    }

    @Test
    void viewsBuysAndTheirTimersComeBackFromASnapshot() throws Exception {
        var before = harness(true, null);
        view(before, 1, "01:00");
        buy(before, 2, "01:08");
        OperatorSubtaskState snapshot = before.snapshot(1, 0);

        var after = harness(true, snapshot);
        assertThat(views(after)).containsExactly("7: view 1 at 01:00:00 unmatched");
        assertThat(buys(after)).containsExactly("7: buy 2 at 01:08:00");
        assertThat(after.numEventTimeTimers()).isEqualTo(2);

        view(after, 3, "01:06");
        watermark(after, "01:08");
        assertThat(drain(after)).containsExactly("7 3 2", "7 1 null");
    }

    // ---------------------------------------------------------------------------------------

    private KeyedTwoInputStreamOperatorTestHarness<NullableKey, Event, Event, RowData> harness(
            boolean leftOuter, OperatorSubtaskState restored) throws Exception {
        var h =
                new KeyedTwoInputStreamOperatorTestHarness<>(
                        new KeyedCoProcessOperator<>(
                                new ViewThenBuyJoin(BOUND, leftOuter, scope())),
                        (Event e) -> NullableKey.of(e.userId),
                        (Event e) -> NullableKey.of(e.userId),
                        NullableKey.TYPE);
        open.add(h);
        h.setup(ROWS);
        if (restored != null) {
            h.initializeState(restored);
        }
        h.open();
        return h;
    }

    private static void view(
            KeyedTwoInputStreamOperatorTestHarness<NullableKey, Event, Event, RowData> h,
            long id,
            String time)
            throws Exception {
        Instant t = instant(time);
        h.processElement1(new Event(id, USER, "view", t, null), t.toEpochMilli());
    }

    private static void buy(
            KeyedTwoInputStreamOperatorTestHarness<NullableKey, Event, Event, RowData> h,
            long id,
            String time)
            throws Exception {
        buyOf(h, USER, id, time);
    }

    private static void buyOf(
            KeyedTwoInputStreamOperatorTestHarness<NullableKey, Event, Event, RowData> h,
            int user,
            long id,
            String time)
            throws Exception {
        Instant t = instant(time);
        h.processElement2(new Event(id, user, "buy", t, 9.99), t.toEpochMilli());
    }

    /** Spark's watermark {@code time} on both inputs (Flink's is one less). */
    private static void watermark(
            KeyedTwoInputStreamOperatorTestHarness<NullableKey, Event, Event, RowData> h,
            String time)
            throws Exception {
        h.processBothWatermarks(new Watermark(Watermarks.toFlink(at(time))));
    }

    /** What the join wrote since the last call, as {@code user view buy}. */
    private static List<String> drain(
            KeyedTwoInputStreamOperatorTestHarness<NullableKey, Event, Event, RowData> h) {
        List<String> rows =
                h.extractOutputValues().stream()
                        .map(
                                r ->
                                        (r.isNullAt(0) ? "null" : r.getInt(0))
                                                + " "
                                                + (r.isNullAt(1) ? "null" : r.getLong(1))
                                                + " "
                                                + (r.isNullAt(2) ? "null" : r.getLong(2)))
                        .collect(Collectors.toList());
        h.getOutput().clear();
        return rows;
    }

    /** The views held, as {@code user: view id at time matched|unmatched}. */
    private static List<String> views(
            KeyedTwoInputStreamOperatorTestHarness<NullableKey, Event, Event, RowData> h)
            throws Exception {
        List<String> views = new ArrayList<>();
        for (Map.Entry<NullableKey, long[]> rows : held(h, "views").entrySet()) {
            long[] r = rows.getValue();
            for (int i = 0; i < r.length; i += 3) {
                views.add(
                        rows.getKey()
                                + ": view "
                                + r[i]
                                + " at "
                                + time(r[i + 1])
                                + ((r[i + 2] & 1) == 1 ? " matched" : " unmatched"));
            }
        }
        return views;
    }

    /** The buys held, as {@code user: buy id at time}. */
    private static List<String> buys(
            KeyedTwoInputStreamOperatorTestHarness<NullableKey, Event, Event, RowData> h)
            throws Exception {
        List<String> buys = new ArrayList<>();
        for (Map.Entry<NullableKey, long[]> rows : held(h, "buys").entrySet()) {
            long[] r = rows.getValue();
            for (int i = 0; i < r.length; i += 3) {
                buys.add(rows.getKey() + ": buy " + r[i] + " at " + time(r[i + 1]));
            }
        }
        return buys;
    }

    /** One of the join's keyed map states (time bucket -> rows), all buckets of a user joined. */
    private static Map<NullableKey, long[]> held(
            KeyedTwoInputStreamOperatorTestHarness<NullableKey, Event, Event, RowData> h,
            String name)
            throws Exception {
        KeyedStateBackend<NullableKey> backend = h.getOperator().getKeyedStateBackend();
        List<NullableKey> users;
        try (var stream = backend.getKeys(name, VoidNamespace.INSTANCE)) {
            users = stream.collect(Collectors.toList());
        }
        Map<NullableKey, long[]> held =
                new TreeMap<>(
                        java.util.Comparator.comparing(NullableKey::isNull)
                                .thenComparing(NullableKey::value));
        for (NullableKey user : users) {
            backend.setCurrentKey(user);
            MapState<Long, long[]> state =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new MapStateDescriptor<>(
                                    name,
                                    Types.LONG,
                                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
            long[] all = new long[0];
            for (Map.Entry<Long, long[]> bucket : new TreeMap<>(toMap(state)).entrySet()) {
                long[] grown = Arrays.copyOf(all, all.length + bucket.getValue().length);
                System.arraycopy(bucket.getValue(), 0, grown, all.length, bucket.getValue().length);
                all = grown;
            }
            if (all.length > 0) {
                held.put(user, all);
            }
        }
        return held;
    }

    private static Map<Long, long[]> toMap(MapState<Long, long[]> state) throws Exception {
        Map<Long, long[]> map = new TreeMap<>();
        for (Map.Entry<Long, long[]> e : state.entries()) {
            map.put(e.getKey(), e.getValue());
        }
        return map;
    }

    private Fragment.StateRows stateRows(long checkpointId) {
        return Fragments.read(scope().fragments(checkpointId)).stream()
                .filter(f -> f instanceof Fragment.StateRows)
                .map(f -> (Fragment.StateRows) f)
                .findFirst()
                .orElseThrow();
    }

    /** 2025-03-01 at {@code HH:mm} or {@code HH:mm:ss[.SSS[SSS]]}, UTC. */
    private static Instant instant(String time) {
        String t = time.length() == 5 ? time + ":00" : time;
        return Instant.parse("2025-03-01T" + t + "Z");
    }

    /** {@link #instant} in epoch milliseconds (floored), a record timestamp or a watermark. */
    private static long at(String time) {
        return instant(time).toEpochMilli();
    }

    /** A time the join holds, epoch microseconds, as {@code HH:mm:ss[.SSS[SSS]]}. */
    private static String time(long epochMicros) {
        return Instant.ofEpochSecond(
                        Math.floorDiv(epochMicros, 1_000_000),
                        Math.floorMod(epochMicros, 1_000_000) * 1000)
                .toString()
                .substring(11)
                .replace("Z", "");
    }
}
