package org.flinkss.time;

import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import org.flinkss.event.Event;
import org.flinkss.progress.Fragments;
import org.flinkss.progress.RunFiles;

import java.io.Serializable;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Drops the rows a stateful operator must not take, as Spark's watermark does, but never silently:
 * they go to a side output (the query writes them to {@code <table>_late}, with the watermark they
 * missed) and are counted as the operator's {@code numRowsDroppedByWatermark}.
 *
 * <p>It stands before the stateful operator in both APIs, so that the DataStream operators and the
 * SQL window TVFs after it only ever see rows that are on time: both then give the same table. The
 * watermark it compares with is the operator's current one, which, with micro-batch sources, is
 * exactly the watermark the previous batch ended with.
 */
public final class LateRowRouter extends ProcessFunction<Event, Event>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** When is a row too late for the operator: Spark's rule for that operator. */
    @FunctionalInterface
    public interface Rule extends Serializable {
        boolean isLate(long eventTime, long sparkWatermark);
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

    /** A late row: the event, the watermark it missed (Spark's), and why. */
    public static final class LateEvent {
        public Event event;
        public long watermark;
        public String reason;

        public LateEvent() {}

        public LateEvent(Event event, long watermark, String reason) {
            this.event = event;
            this.watermark = watermark;
            this.reason = reason;
        }
    }

    public static final OutputTag<LateEvent> LATE =
            new OutputTag<>(
                    "late-rows",
                    org.apache.flink.api.common.typeinfo.TypeInformation.of(LateEvent.class));

    private final String operatorName;
    private final Rule rule;
    private final String checkpointDir;
    private final String runId;

    private transient long dropped;

    public LateRowRouter(
            String operatorName, Rule rule, java.nio.file.Path checkpointDir, String runId) {
        this.operatorName = operatorName;
        this.rule = rule;
        this.checkpointDir = checkpointDir.toAbsolutePath().toString();
        this.runId = runId;
    }

    @Override
    public void processElement(Event event, Context ctx, Collector<Event> out) {
        long watermark = Watermarks.fromFlink(ctx.timerService().currentWatermark());
        if (event.eventTs == null) {
            ctx.output(LATE, new LateEvent(event, watermark, "no event time: event_ts is null"));
            dropped++;
        } else if (rule.isLate(event.eventTs.toEpochMilli(), watermark)) {
            ctx.output(
                    LATE,
                    new LateEvent(
                            event,
                            watermark,
                            "older than the watermark " + Watermarks.format(watermark)));
            dropped++;
        } else {
            out.collect(event);
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        if (dropped == 0) {
            return;
        }
        Map<String, Object> fragment = new LinkedHashMap<>();
        fragment.put("kind", "dropped");
        fragment.put("name", operatorName);
        fragment.put("rows", dropped);
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        Fragments.write(
                RunFiles.fragmentDir(Paths.get(checkpointDir), runId, context.getCheckpointId())
                        .resolve("dropped-" + operatorName + "-" + subtask + ".json"),
                fragment);
        dropped = 0;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
}
