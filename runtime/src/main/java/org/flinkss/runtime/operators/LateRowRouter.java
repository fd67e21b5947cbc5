package org.flinkss.runtime.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import org.flinkss.runtime.checkpoint.RunScope;
import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.time.Watermarks;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;

/**
 * Drops the rows a stateful operator must not take, as Spark's watermark does, but never silently:
 * they go to a side output ({@link #lateRows()}; a query writes them to {@code <table>_late}, with
 * the watermark they missed) and are counted as the operator's {@code numRowsDroppedByWatermark}.
 *
 * <p>It stands before the stateful operator in both APIs, so that the DataStream operators and the
 * SQL operators after it only ever see rows that are on time: both then give the same table. The
 * watermark it compares with is the operator's current one, which, with micro-batch sources, is
 * exactly the watermark the previous batch ended with.
 *
 * @param <T> the rows
 */
public final class LateRowRouter<T> extends ProcessFunction<T, T> implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** When is a row too late for the operator: Spark's rule for that operator. */
    @FunctionalInterface
    public interface Rule extends Serializable {
        boolean isLate(long eventTime, long sparkWatermark);
    }

    /** The event time of a row in epoch milliseconds, or null if it has none. */
    @FunctionalInterface
    public interface EventTime<T> extends Serializable {
        Long of(T row);
    }

    /** Rows with their event time at or before the watermark (dedup, joins). */
    public static Rule rowRule() {
        return Watermarks::isLate;
    }

    /**
     * Windowed aggregations: a row is late when the first window that holds it has already ended
     * ({@code window_end <= watermark}); for tumbling windows that is Spark's rule exactly.
     */
    public static Rule windowRule(long sizeMillis, long slideMillis) {
        return (eventTime, watermark) -> {
            if (watermark == Watermarks.NONE) {
                return false;
            }
            return firstWindowEnd(eventTime, sizeMillis, slideMillis) <= watermark;
        };
    }

    /** Session windows: a row alone makes the session [t, t + gap), late once that has ended. */
    public static Rule sessionRule(long gapMillis) {
        return (eventTime, watermark) ->
                watermark != Watermarks.NONE && eventTime + gapMillis <= watermark;
    }

    /**
     * The end of the earliest window [start, start + size), start a multiple of slide, that holds
     * the time.
     */
    public static long firstWindowEnd(long eventTime, long sizeMillis, long slideMillis) {
        long start = eventTime - Math.floorMod(eventTime, slideMillis);
        while (start - slideMillis + sizeMillis > eventTime) {
            start -= slideMillis;
        }
        return start + sizeMillis;
    }

    private final String operatorName;
    private final Rule rule;
    private final EventTime<T> eventTime;
    private final TypeInformation<T> rowType;
    private final RunScope scope;

    private transient long dropped;

    /**
     * @param operatorName the stateful operator the router stands before, as progress names it
     * @param rowType the rows' type, for the side output of late rows
     */
    public LateRowRouter(
            String operatorName,
            Rule rule,
            EventTime<T> eventTime,
            TypeInformation<T> rowType,
            RunScope scope) {
        this.operatorName = Objects.requireNonNull(operatorName);
        this.rule = Objects.requireNonNull(rule);
        this.eventTime = Objects.requireNonNull(eventTime);
        this.rowType = Objects.requireNonNull(rowType);
        this.scope = Objects.requireNonNull(scope);
    }

    /** The side output of the rows this router dropped. */
    public OutputTag<LateRow<T>> lateRows() {
        return lateRows(rowType);
    }

    /** The side output of late rows of type {@code rowType}. */
    public static <T> OutputTag<LateRow<T>> lateRows(TypeInformation<T> rowType) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        TypeInformation<LateRow<T>> type =
                (TypeInformation)
                        Types.POJO(
                                LateRow.class,
                                Map.of(
                                        "row",
                                        rowType,
                                        "watermark",
                                        Types.LONG,
                                        "reason",
                                        Types.STRING));
        return new OutputTag<>("late-rows", type);
    }

    @Override
    public void processElement(T row, Context ctx, Collector<T> out) {
        long watermark = Watermarks.fromFlink(ctx.timerService().currentWatermark());
        Long time = eventTime.of(row);
        if (time == null) {
            ctx.output(lateRows(), new LateRow<>(row, watermark, "no event time"));
            dropped++;
        } else if (rule.isLate(time, watermark)) {
            ctx.output(
                    lateRows(),
                    new LateRow<>(
                            row,
                            watermark,
                            "older than the watermark " + Watermarks.format(watermark)));
            dropped++;
        } else {
            out.collect(row);
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        if (dropped == 0) {
            return;
        }
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        Fragments.write(
                scope,
                context.getCheckpointId(),
                new Fragment.DroppedRows(operatorName, subtask, dropped));
        dropped = 0;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
}
