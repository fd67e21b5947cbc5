package org.flinkss.runtime.operators;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import org.flinkss.runtime.checkpoint.RunScope;

import javax.annotation.Nullable;

/**
 * Spark's {@code dropDuplicatesWithinWatermark}: the first row of a key passes, later rows of the
 * key are dropped while the key is remembered. A key is remembered until the watermark reaches the
 * first row's event time plus the watermark delay; after that, a duplicate (with a newer event
 * time, since older rows are late anyway) passes again. That is Spark's documented trade-off for
 * bounded state.
 *
 * <p>Rows must come with their event time as the record timestamp, and late rows must not reach it
 * (a {@link LateRowRouter} stands before it). A row without a timestamp (a null event time) is kept
 * and its key never forgotten, as in Spark.
 *
 * @param <K> the key rows are deduplicated on
 * @param <T> the rows
 */
public final class DedupWithinWatermark<K, T> extends KeyedProcessFunction<K, T, T>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    private final long delayMillis;
    private final StateMetrics metrics;
    private final LateRowRouter.EventTime<T> micros;

    private transient ValueState<Long> expiresAt;

    /**
     * @param operatorName the operator as progress names it (Spark's is {@code
     *     dedupeWithinWatermark}...)
     * @param delayMillis the watermark delay of the query: how long a key is remembered
     */
    public DedupWithinWatermark(String operatorName, long delayMillis, RunScope scope) {
        this(operatorName, delayMillis, scope, null);
    }

    /**
     * As {@link #DedupWithinWatermark(String, long, RunScope)}, with each row's event time in
     * microseconds, for Spark's expiry to the microsecond: a key expires once {@code watermark *
     * 1000 >= event_time + delay}, so a row with microseconds past its millisecond is remembered
     * one watermark millisecond longer than its record timestamp (floored to ms) would say.
     *
     * @param micros the row's event time in epoch microseconds (null: its record timestamp)
     */
    public DedupWithinWatermark(
            String operatorName,
            long delayMillis,
            RunScope scope,
            @Nullable LateRowRouter.EventTime<T> micros) {
        this.delayMillis = delayMillis;
        this.metrics = new StateMetrics(operatorName, scope);
        this.micros = micros;
    }

    @Override
    public void open(OpenContext openContext) {
        expiresAt =
                getRuntimeContext().getState(new ValueStateDescriptor<>("expires-at", Types.LONG));
    }

    @Override
    public void processElement(T row, Context ctx, Collector<T> out) throws Exception {
        if (expiresAt.value() != null) {
            return;
        }
        metrics.added(1);
        metrics.updated(ctx.getCurrentKey());
        if (ctx.timestamp() == null || ctx.timestamp() == Long.MIN_VALUE) {
            // A row without event time (passed by LateRowRouter#keepingRowsWithoutEventTime; a
            // source record without one carries Long.MIN_VALUE): Spark's expiry is null, never
            // reached, so the key is never forgotten.
            expiresAt.update(Long.MAX_VALUE);
            out.collect(row);
            return;
        }
        Long eventMicros = micros == null ? null : micros.of(row);
        long expiry =
                (eventMicros == null ? ctx.timestamp() : Math.floorDiv(eventMicros, 1000))
                        + (eventMicros != null && Math.floorMod(eventMicros, 1000) != 0 ? 1 : 0)
                        + delayMillis;
        expiresAt.update(expiry);
        // Spark evicts when watermark (ms) * 1000 >= event time (us) + delay, i.e. watermark >=
        // expiry, the event time rounded up to the ms plus the delay; Flink's watermark is
        // Spark's minus one.
        ctx.timerService().registerEventTimeTimer(expiry - 1);
        out.collect(row);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<T> out) throws Exception {
        // A key has a timer only while it is remembered (one, set with its state), so there is
        // nothing to look up: forget it. Half the state accesses of the cleanup.
        expiresAt.clear();
        metrics.removed(1);
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
