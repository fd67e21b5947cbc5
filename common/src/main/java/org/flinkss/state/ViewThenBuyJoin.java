package org.flinkss.state;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

import org.flinkss.event.Event;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A stream-stream interval join of views and buys of the same user, {@code buy.event_ts BETWEEN
 * view.event_ts AND view.event_ts + bound}, inner or left outer, as Spark runs it with watermarks
 * on both sides: every matching pair once; in the outer variant, each view that no buy matched
 * once, with a null {@code buy_id}, as soon as the watermark makes a match impossible
 * ({@code watermark >= view.event_ts + bound}), never earlier and never for a view that matches.
 *
 * <p>State is evicted by the watermark: rows older than it are dropped before the join, so a view
 * can match no future buy once the watermark passes its end of range, and a buy no future view
 * once the watermark passes the buy itself.
 */
public final class ViewThenBuyJoin extends KeyedCoProcessFunction<Integer, Event, Event, RowData> implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    private final long boundMillis;
    private final boolean leftOuter;
    private final StateMetrics metrics;

    /** View id -> [event time, matched 0/1]; buy id -> event time. */
    private transient MapState<Long, long[]> views;
    private transient MapState<Long, Long> buys;

    public ViewThenBuyJoin(long boundMillis, boolean leftOuter, java.nio.file.Path checkpointDir, String runId) {
        this.boundMillis = boundMillis;
        this.leftOuter = leftOuter;
        this.metrics = new StateMetrics("join", checkpointDir, runId);
    }

    @Override
    public void open(OpenContext openContext) {
        views = getRuntimeContext().getMapState(new MapStateDescriptor<>("views", Types.LONG, org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        buys = getRuntimeContext().getMapState(new MapStateDescriptor<>("buys", Types.LONG, Types.LONG));
    }

    private static long id(Event e) {
        return e.eventId == null ? Long.MIN_VALUE : e.eventId;
    }

    @Override
    public void processElement1(Event view, Context ctx, Collector<RowData> out) throws Exception {
        long ts = ctx.timestamp();
        boolean matched = false;
        for (Map.Entry<Long, Long> buy : buys.entries()) {
            if (buy.getValue() >= ts && buy.getValue() <= ts + boundMillis) {
                out.collect(GenericRowData.of(ctx.getCurrentKey(), id(view), buy.getKey()));
                matched = true;
            }
        }
        views.put(id(view), new long[] {ts, matched ? 1 : 0});
        metrics.added(1);
        metrics.updated("v" + id(view));
        // No buy can match once Spark's watermark >= ts + bound (Flink's is one less).
        ctx.timerService().registerEventTimeTimer(ts + boundMillis - 1);
    }

    @Override
    public void processElement2(Event buy, Context ctx, Collector<RowData> out) throws Exception {
        long ts = ctx.timestamp();
        for (Map.Entry<Long, long[]> view : views.entries()) {
            long viewTs = view.getValue()[0];
            if (ts >= viewTs && ts <= viewTs + boundMillis) {
                out.collect(GenericRowData.of(ctx.getCurrentKey(), view.getKey(), id(buy)));
                if (view.getValue()[1] == 0) {
                    views.put(view.getKey(), new long[] {viewTs, 1});
                }
            }
        }
        buys.put(id(buy), ts);
        metrics.added(1);
        metrics.updated("b" + id(buy));
        // No view can match once Spark's watermark >= the buy's time.
        ctx.timerService().registerEventTimeTimer(ts - 1);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<RowData> out) throws Exception {
        long watermark = ctx.timerService().currentWatermark() + 1;
        List<Long> expired = new ArrayList<>();
        for (Map.Entry<Long, long[]> view : views.entries()) {
            if (watermark >= view.getValue()[0] + boundMillis) {
                expired.add(view.getKey());
                if (leftOuter && view.getValue()[1] == 0) {
                    out.collect(GenericRowData.of(ctx.getCurrentKey(), view.getKey(), null));
                }
            }
        }
        for (Long id : expired) {
            views.remove(id);
        }
        List<Long> gone = new ArrayList<>();
        for (Map.Entry<Long, Long> buy : buys.entries()) {
            if (watermark >= buy.getValue()) {
                gone.add(buy.getKey());
            }
        }
        for (Long id : gone) {
            buys.remove(id);
        }
        metrics.removed(expired.size() + gone.size());
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
