package org.flinkss.window;

import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.windowing.assigners.MergingWindowAssigner;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

import org.flinkss.event.Event;
import org.flinkss.state.StateMetrics;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * An event-time window aggregation in append mode, as Spark's {@code groupBy(window(...), key)}:
 * Flink's window assigners say which windows a row belongs to (tumbling, sliding, or sessions,
 * which merge when they touch), an {@link AggregateFunction} accumulates, and a window is written
 * once, when the watermark passes its end, then its state is dropped.
 *
 * <p>It keeps its windows in keyed {@link MapState} (RocksDB) by window start, so that it can
 * report Spark's state metrics exactly: {@code numRowsTotal} is the number of (key, window) rows
 * held, {@code numRowsUpdated} those changed since the last commit. Late rows never reach it: a
 * {@code LateRowRouter} stands before it.
 *
 * @param <K> the grouping key
 * @param <A> the accumulator
 */
public final class WindowAggregate<K, A extends WindowAggregate.Ended> extends KeyedProcessFunction<K, Event, RowData>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** An accumulator that knows its window's end (sessions grow). */
    public interface Ended extends Serializable {
        long end();

        void end(long end);
    }

    /** Makes the output row of a closed window. */
    @FunctionalInterface
    public interface Emitter<K, A> extends Serializable {
        RowData row(long windowStart, long windowEnd, K key, A accumulator);
    }

    private final String operatorName;
    private final WindowAssigner<Object, TimeWindow> assigner;
    private final AggregateFunction<Event, A, A> aggregate;
    private final Class<A> accumulatorClass;
    private final Emitter<K, A> emitter;
    private final StateMetrics metrics;

    private transient MapState<Long, A> windows;
    private transient WindowAssigner.WindowAssignerContext assignerContext;
    private transient long windowSize;

    @SuppressWarnings("unchecked")
    public WindowAggregate(String operatorName, WindowAssigner<?, TimeWindow> assigner, AggregateFunction<Event, A, A> aggregate,
                           Class<A> accumulatorClass, Emitter<K, A> emitter, java.nio.file.Path checkpointDir, String runId) {
        this.operatorName = operatorName;
        this.assigner = (WindowAssigner<Object, TimeWindow>) assigner;
        this.aggregate = aggregate;
        this.accumulatorClass = accumulatorClass;
        this.emitter = emitter;
        this.metrics = new StateMetrics(operatorName, checkpointDir, runId);
    }

    @Override
    public void open(OpenContext openContext) {
        windows = getRuntimeContext().getMapState(new MapStateDescriptor<>("windows", Types.LONG, Types.POJO(accumulatorClass)));
        windowSize = -1;
    }

    @Override
    public void processElement(Event event, Context ctx, Collector<RowData> out) throws Exception {
        long timestamp = ctx.timestamp();
        Collection<TimeWindow> assigned = assigner.assignWindows(event, timestamp, assignerContext());
        if (assigner instanceof MergingWindowAssigner) {
            for (TimeWindow window : assigned) {
                addToSession(window, event, ctx);
            }
            return;
        }
        for (TimeWindow window : assigned) {
            A acc = windows.get(window.getStart());
            if (acc == null) {
                acc = aggregate.createAccumulator();
                acc.end(window.getEnd());
                metrics.added(1);
            }
            windows.put(window.getStart(), aggregate.add(event, acc));
            metrics.updated(ctx.getCurrentKey() + "/" + window.getStart());
            ctx.timerService().registerEventTimeTimer(window.maxTimestamp());
        }
    }

    /** Sessions: the new row's window swallows every session it touches (Spark merges at equality too). */
    private void addToSession(TimeWindow window, Event event, Context ctx) throws Exception {
        long start = window.getStart();
        long end = window.getEnd();
        A merged = aggregate.add(event, aggregate.createAccumulator());
        List<Long> swallowed = new ArrayList<>();
        for (Map.Entry<Long, A> session : windows.entries()) {
            long s = session.getKey();
            long e = session.getValue().end();
            if (s <= end && e >= start) {
                swallowed.add(s);
                merged = aggregate.merge(merged, session.getValue());
                start = Math.min(start, s);
                end = Math.max(end, e);
            }
        }
        for (Long s : swallowed) {
            windows.remove(s);
        }
        metrics.added(1 - swallowed.size());
        merged.end(end);
        windows.put(start, merged);
        metrics.updated(ctx.getCurrentKey() + "/" + start);
        ctx.timerService().registerEventTimeTimer(end - 1);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<RowData> out) throws Exception {
        if (!(assigner instanceof MergingWindowAssigner)) {
            // One timer per window, at its maxTimestamp (end - 1): with the watermark mapping
            // that is Spark's end <= watermark. The window's start follows from its end.
            long start = timestamp + 1 - sizeOf(timestamp);
            A acc = windows.get(start);
            if (acc != null && acc.end() == timestamp + 1) {
                out.collect(emitter.row(start, acc.end(), ctx.getCurrentKey(), acc));
                windows.remove(start);
                metrics.removed(1);
            }
            return;
        }
        long watermark = ctx.timerService().currentWatermark();
        List<Long> closed = new ArrayList<>();
        for (Map.Entry<Long, A> window : windows.entries()) {
            if (window.getValue().end() - 1 <= watermark) {
                closed.add(window.getKey());
                out.collect(emitter.row(window.getKey(), window.getValue().end(), ctx.getCurrentKey(), window.getValue()));
            }
        }
        for (Long start : closed) {
            windows.remove(start);
        }
        metrics.removed(closed.size());
    }

    /** The size of the (fixed-size) windows, from the assigner. */
    private long sizeOf(long timestamp) {
        if (windowSize < 0) {
            TimeWindow any = assigner.assignWindows(null, timestamp, assignerContext()).iterator().next();
            windowSize = any.getEnd() - any.getStart();
        }
        return windowSize;
    }

    private WindowAssigner.WindowAssignerContext assignerContext() {
        if (assignerContext == null) {
            assignerContext = new WindowAssigner.WindowAssignerContext() {
                @Override
                public long getCurrentProcessingTime() {
                    return System.currentTimeMillis();
                }
            };
        }
        return assignerContext;
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
