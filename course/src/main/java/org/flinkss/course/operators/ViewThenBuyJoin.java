package org.flinkss.course.operators;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

import org.flinkss.course.event.Event;
import org.flinkss.runtime.operators.NullableKey;
import org.flinkss.runtime.operators.StateMetrics;
import org.flinkss.runtime.progress.RunScope;

import java.util.Arrays;

/**
 * A stream-stream interval join of views and buys of the same user, {@code buy.event_ts BETWEEN
 * view.event_ts AND view.event_ts + bound}, inner or left outer, as Spark runs it with watermarks
 * on both sides: every matching pair once; in the outer variant, each view that no buy matched
 * once, with a null {@code buy_id}, once the watermark is strictly past its range ({@code watermark
 * > view.event_ts + bound}, as Spark: the {@code BETWEEN} is inclusive), never earlier and never
 * for a view that matches. Rows are keyed by their user as a {@link NullableKey}: a view without a
 * user (the null key, which no buy has) matches nothing and comes out unmatched, with a null {@code
 * user_id}, as Spark's equality on a null never holds; no user id stands in for it, so a buy of
 * user -2147483648 is that user's (issue 37 point 5).
 *
 * <p>Times are Spark's {@code TIMESTAMP}, epoch microseconds ({@link LateEvents#micros}), and the
 * range is compared on them; the watermark is in milliseconds and compared as Spark compares it,
 * {@code watermark_ms * 1000} against microseconds. A view's null row is due once {@code watermark
 * * 1000 > view + bound}: its timer is at the view's millisecond plus the bound (Flink fires it at
 * Spark's watermark one more).
 *
 * <p>State is evicted by the watermark: rows older than it are dropped before the join, so a view
 * can match no future buy once the watermark passes its end of range, and a buy no future view once
 * the watermark reaches the buy itself ({@code watermark * 1000 >= buy}).
 */
public final class ViewThenBuyJoin
        extends KeyedCoProcessFunction<NullableKey, Event, Event, RowData>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** The user of the key: null for the null key. */
    private static Integer user(NullableKey key) {
        return key.asInt();
    }

    private static final long MICROS_PER_MILLI = 1000;

    private final long boundMillis;
    private final long boundMicros;
    private final boolean leftOuter;
    private final StateMetrics metrics;

    /**
     * Rows by time bucket (event time / bound): a row only ever meets rows of its own bucket and
     * the next (or previous) one, so a lookup reads two small buckets whatever the state size.
     * Views and buys are stored as (id, time, flags) triples: {@link #MATCHED} (views), {@link
     * #NO_ID} (the id is null; its slot holds 0); times and buckets in microseconds.
     */
    private transient MapState<Long, long[]> views;

    private transient MapState<Long, long[]> buys;

    public ViewThenBuyJoin(long boundMillis, boolean leftOuter, RunScope scope) {
        this.boundMillis = boundMillis;
        this.boundMicros = boundMillis * MICROS_PER_MILLI;
        this.leftOuter = leftOuter;
        this.metrics = new StateMetrics("join", scope);
    }

    @Override
    public void open(OpenContext openContext) {
        views = getRuntimeContext().getMapState(ViewThenBuyState.views());
        buys = getRuntimeContext().getMapState(ViewThenBuyState.buys());
    }

    private static final long MATCHED = ViewThenBuyState.MATCHED;

    private static final long NO_ID = ViewThenBuyState.NO_ID;

    private static long id(Event e) {
        return e.eventId == null ? 0 : e.eventId;
    }

    private static long idFlag(Event e) {
        return e.eventId == null ? NO_ID : 0;
    }

    /** The id of a stored row: null if it had none. */
    private static Long id(long[] rows, int i) {
        return (rows[i + 2] & NO_ID) != 0 ? null : rows[i];
    }

    /** The event time of a row that reached the join (late rows, and so rows without, did not). */
    private static long micros(Event e) {
        return LateEvents.micros(e.eventTs);
    }

    private long bucket(long micros) {
        return Math.floorDiv(micros, boundMicros);
    }

    private static long[] append(long[] rows, long... row) {
        long[] grown =
                rows == null ? new long[row.length] : Arrays.copyOf(rows, rows.length + row.length);
        System.arraycopy(row, 0, grown, grown.length - row.length, row.length);
        return grown;
    }

    @Override
    public void processElement1(Event view, Context ctx, Collector<RowData> out) throws Exception {
        long ts = micros(view);
        boolean matched = false;
        for (long b = bucket(ts); b <= bucket(ts + boundMicros); b++) {
            long[] rows = buys.get(b);
            for (int i = 0; rows != null && i < rows.length; i += 3) {
                if (rows[i + 1] >= ts && rows[i + 1] <= ts + boundMicros) {
                    out.collect(
                            GenericRowData.of(
                                    user(ctx.getCurrentKey()), view.eventId, id(rows, i)));
                    matched = true;
                }
            }
        }
        views.put(
                bucket(ts),
                append(
                        views.get(bucket(ts)),
                        id(view),
                        ts,
                        (matched ? MATCHED : 0) | idFlag(view)));
        metrics.appended(1);
        // Spark lets the view go once its watermark * 1000 > ts + bound, that is once its
        // watermark > the view's millisecond + bound (Flink's watermark is one less).
        ctx.timerService()
                .registerEventTimeTimer(Math.floorDiv(ts, MICROS_PER_MILLI) + boundMillis);
    }

    @Override
    public void processElement2(Event buy, Context ctx, Collector<RowData> out) throws Exception {
        if (ctx.getCurrentKey().isNull()) {
            // A buy without a user matches no view: nothing to keep it for.
            return;
        }
        long ts = micros(buy);
        for (long b = bucket(ts - boundMicros); b <= bucket(ts); b++) {
            long[] rows = views.get(b);
            boolean changed = false;
            for (int i = 0; rows != null && i < rows.length; i += 3) {
                if (ts >= rows[i + 1] && ts <= rows[i + 1] + boundMicros) {
                    out.collect(
                            GenericRowData.of(user(ctx.getCurrentKey()), id(rows, i), buy.eventId));
                    if ((rows[i + 2] & MATCHED) == 0) {
                        rows[i + 2] |= MATCHED;
                        changed = true;
                    }
                }
            }
            if (changed) {
                views.put(b, rows);
            }
        }
        buys.put(bucket(ts), append(buys.get(bucket(ts)), id(buy), ts, idFlag(buy)));
        metrics.appended(1);
        // No view can match once Spark's watermark * 1000 >= the buy's time, that is once the
        // watermark reaches the buy's time rounded up to a millisecond.
        ctx.timerService().registerEventTimeTimer(-Math.floorDiv(-ts, MICROS_PER_MILLI) - 1);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<RowData> out)
            throws Exception {
        // Spark's watermark at this timer, in microseconds.
        long watermark = (timestamp + 1) * MICROS_PER_MILLI;
        // Views whose range the watermark is now strictly past: emit the unmatched ones (outer),
        // forget them. The views of this timer lie in millisecond timestamp - bound.
        long viewBucket = bucket((timestamp - boundMillis) * MICROS_PER_MILLI);
        long[] rows = views.get(viewBucket);
        if (rows != null) {
            long[] kept = new long[0];
            for (int i = 0; i < rows.length; i += 3) {
                if (rows[i + 1] + boundMicros < watermark) {
                    if (leftOuter && (rows[i + 2] & MATCHED) == 0) {
                        out.collect(
                                GenericRowData.of(user(ctx.getCurrentKey()), id(rows, i), null));
                    }
                    metrics.removed(1);
                } else {
                    kept = append(kept, rows[i], rows[i + 1], rows[i + 2]);
                }
            }
            put(views, viewBucket, kept);
        }
        // Buys of the millisecond before the watermark (up to it): no later view can match them.
        for (long buyBucket = bucket(watermark - MICROS_PER_MILLI + 1);
                buyBucket <= bucket(watermark);
                buyBucket++) {
            long[] buyRows = buys.get(buyBucket);
            if (buyRows != null) {
                long[] kept = new long[0];
                for (int i = 0; i < buyRows.length; i += 3) {
                    if (buyRows[i + 1] <= watermark) {
                        metrics.removed(1);
                    } else {
                        kept = append(kept, buyRows[i], buyRows[i + 1], buyRows[i + 2]);
                    }
                }
                put(buys, buyBucket, kept);
            }
        }
    }

    private static void put(MapState<Long, long[]> state, long bucket, long[] rows)
            throws Exception {
        if (rows.length == 0) {
            state.remove(bucket);
        } else {
            state.put(bucket, rows);
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        metrics.snapshot(context, getRuntimeContext());
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        metrics.initialize(context);
    }
}
