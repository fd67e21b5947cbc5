package org.flinkss.runtime.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.progress.RunScope;
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

    /**
     * When is a row too late for the operator: Spark's rule for that operator. Event times are
     * epoch microseconds (Spark's {@code TIMESTAMP}), watermarks epoch milliseconds (Spark's and
     * Flink's): Spark compares {@code event_time <= watermark * 1000}, so a row one microsecond
     * after the watermark is on time.
     */
    @FunctionalInterface
    public interface Rule extends Serializable {
        /** The row is late for everything the operator would do with it: it is dropped. */
        boolean isLate(long eventTimeMicros, long sparkWatermark);

        /**
         * How many of the row's windows have ended by the watermark: Spark drops the row from each
         * of them and keeps it in the others. A rule without windows (rows, sessions) has one.
         */
        default int closedWindows(long eventTimeMicros, long sparkWatermark) {
            return isLate(eventTimeMicros, sparkWatermark) ? 1 : 0;
        }
    }

    /** The event time of a row in epoch microseconds, or null if it has none. */
    @FunctionalInterface
    public interface EventTime<T> extends Serializable {
        Long of(T row);
    }

    /** Rows with their event time at or before the watermark (dedup, joins). */
    public static Rule rowRule() {
        return (eventTimeMicros, watermark) ->
                eventTimeMicros <= Watermarks.inForce(watermark) * 1000;
    }

    /**
     * Fixed-size windows (tumbling: {@code slide == size}; sliding): Spark drops a row from each of
     * its windows whose end is at or before the watermark and keeps it in the others, so the row is
     * late (dropped) only once its last window has ended; before that, {@link Rule#closedWindows}
     * says from how many it is dropped.
     */
    public static Rule windowRule(long sizeMillis, long slideMillis) {
        return new Rule() {
            private static final long serialVersionUID = 1L;

            // Windows of whole milliseconds: a row's windows are those of its millisecond (Spark
            // assigns them on microseconds, with the same result), and ends compare in ms.
            @Override
            public boolean isLate(long eventTimeMicros, long watermark) {
                long eventTime = Math.floorDiv(eventTimeMicros, 1000);
                return Watermarks.isLate(
                        lastWindowEnd(eventTime, sizeMillis, slideMillis), watermark);
            }

            @Override
            public int closedWindows(long eventTimeMicros, long watermark) {
                long eventTime = Math.floorDiv(eventTimeMicros, 1000);
                int closed = 0;
                for (long end = firstWindowEnd(eventTime, sizeMillis, slideMillis);
                        end - sizeMillis <= eventTime;
                        end += slideMillis) {
                    if (Watermarks.isLate(end, watermark)) {
                        closed++;
                    }
                }
                return closed;
            }
        };
    }

    /**
     * Session windows: a row alone makes the session [t, t + gap), late once that has ended (in
     * microseconds, as Spark: {@code t + gap <= watermark * 1000}).
     */
    public static Rule sessionRule(long gapMillis) {
        return (eventTimeMicros, watermark) ->
                eventTimeMicros + gapMillis * 1000 <= Watermarks.inForce(watermark) * 1000;
    }

    /**
     * The end of the latest window [start, start + size), start a multiple of slide, that holds the
     * time.
     */
    public static long lastWindowEnd(long eventTime, long sizeMillis, long slideMillis) {
        return eventTime - Math.floorMod(eventTime, slideMillis) + sizeMillis;
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

    private final boolean keepRowsWithoutTime;

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
        this(operatorName, rule, eventTime, rowType, scope, false);
    }

    private LateRowRouter(
            String operatorName,
            Rule rule,
            EventTime<T> eventTime,
            TypeInformation<T> rowType,
            RunScope scope,
            boolean keepRowsWithoutTime) {
        this.keepRowsWithoutTime = keepRowsWithoutTime;
        this.operatorName = Objects.requireNonNull(operatorName);
        this.rule = Objects.requireNonNull(rule);
        this.eventTime = Objects.requireNonNull(eventTime);
        this.rowType = Objects.requireNonNull(rowType);
        this.scope = Objects.requireNonNull(scope);
    }

    /**
     * This router, but a row without event time passes instead of being dropped: Spark's row rule
     * {@code event_ts <= watermark} is never true for a null, so {@code
     * dropDuplicatesWithinWatermark} keeps such a row (and never forgets its key).
     */
    public LateRowRouter<T> keepingRowsWithoutEventTime() {
        return new LateRowRouter<>(operatorName, rule, eventTime, rowType, scope, true);
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
        if (time == null && keepRowsWithoutTime) {
            out.collect(row);
        } else if (time == null) {
            ctx.output(lateRows(), new LateRow<>(row, watermark, "no event time"));
            dropped++;
        } else if (rule.isLate(time, watermark)) {
            ctx.output(
                    lateRows(),
                    new LateRow<>(
                            row,
                            watermark,
                            "older than the watermark " + Watermarks.format(watermark)));
            dropped += rule.closedWindows(time, watermark);
        } else {
            int closed = rule.closedWindows(time, watermark);
            if (closed > 0) {
                // Dropped from its ended windows only: recorded, counted, and kept for the rest.
                ctx.output(
                        lateRows(),
                        new LateRow<>(
                                row,
                                watermark,
                                "dropped from "
                                        + closed
                                        + " of its windows, those that ended by the watermark "
                                        + Watermarks.format(watermark)
                                        + "; kept in the others"));
                dropped += closed;
            }
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
