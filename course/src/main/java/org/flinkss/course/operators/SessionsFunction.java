package org.flinkss.course.operators;

import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.FunctionHint;
import org.apache.flink.table.annotation.StateHint;
import org.apache.flink.table.api.dataview.MapView;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.types.Row;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Spark's session windows for the Table API, as a process table function over the events of one
 * table, {@code PARTITION BY} the key, in microseconds as Spark's {@code TIMESTAMP}: a row opens
 * {@code [t, t + gap)}, sessions merge when one starts at or before the other's end (equality
 * merges), and a session is written once {@code end <= watermark_ms * 1000}, with {@code events =
 * count(*)} and {@code amount = round(sum(amount), 2)} summed in the order {@link
 * org.flinkss.runtime.operators.WindowAggregate} sums them in the DataStream API. Flink SQL's
 * {@code SESSION} window cannot do it: a rowtime has at most milliseconds.
 *
 * <p>The rows' {@code on_time} column must be each row's own session end in milliseconds (its time
 * plus the gap, floored): Flink 2.2 drops a row whose time is at or before the watermark before
 * {@code eval}, and a row earlier than the watermark can still be on time for Spark's session rule
 * ({@code t + gap > watermark}); a late-row router drops the late ones before it. The event time
 * itself is read from {@code eventTs}.
 */
@FunctionHint(
        output =
                @DataTypeHint(
                        "ROW<window_start TIMESTAMP_LTZ(6), window_end TIMESTAMP_LTZ(6),"
                                + " events BIGINT, amount DOUBLE>"))
public final class SessionsFunction extends ProcessTableFunction<Row> {

    private static final long serialVersionUID = 1L;

    private static final long MICROS_PER_MILLI = 1000;

    /** An open session in state (by start, epoch microseconds). */
    public static class Session {
        /** The end, epoch microseconds (exclusive). */
        public Long end;

        public Long events;
        public Double amount;
        public Boolean hasAmount;
    }

    private final long gapMicros;

    /**
     * Register an instance: {@code createTemporarySystemFunction(name, new
     * SessionsFunction(gapMillis))}.
     */
    public SessionsFunction(long gapMillis) {
        this.gapMicros = gapMillis * MICROS_PER_MILLI;
    }

    public void eval(
            Context ctx,
            @StateHint MapView<Long, Session> sessions,
            @ArgumentHint(
                            value = {
                                ArgumentTrait.SET_SEMANTIC_TABLE,
                                ArgumentTrait.REQUIRE_ON_TIME
                            },
                            name = "input")
                    Row input)
            throws Exception {
        // Late rows, and so rows without a time, were routed away before this function.
        long start = LateEvents.micros((Instant) input.getField("eventTs"));
        long end = start + gapMicros;
        Double amount = (Double) input.getField("amount");
        Session merged = new Session();
        merged.events = 1L;
        merged.amount = amount == null ? 0.0 : amount;
        merged.hasAmount = amount != null;
        // Ascending by start, as the DataStream operator merges them.
        TreeMap<Long, Session> touched = new TreeMap<>();
        for (Map.Entry<Long, Session> e : sessions.entries()) {
            if (e.getKey() <= end && e.getValue().end >= start) {
                touched.put(e.getKey(), e.getValue());
            }
        }
        for (Map.Entry<Long, Session> e : touched.entrySet()) {
            Session s = e.getValue();
            merged.events += s.events;
            merged.amount = merged.amount + s.amount;
            merged.hasAmount = merged.hasAmount || s.hasAmount;
            start = Math.min(start, e.getKey());
            end = Math.max(end, s.end);
            sessions.remove(e.getKey());
        }
        merged.end = end;
        sessions.put(start, merged);
        ctx.timeContext(Long.class).registerOnTime(timerFor(end));
    }

    public void onTimer(OnTimerContext ctx, MapView<Long, Session> sessions) throws Exception {
        // Spark's watermark, in microseconds.
        long watermark = (ctx.timeContext(Long.class).currentWatermark() + 1) * MICROS_PER_MILLI;
        List<Long> closed = new ArrayList<>();
        for (Map.Entry<Long, Session> e : new TreeMap<>(toMap(sessions)).entrySet()) {
            Session s = e.getValue();
            if (s.end <= watermark) {
                closed.add(e.getKey());
                collect(
                        Row.of(
                                instant(e.getKey()),
                                instant(s.end),
                                s.events,
                                s.hasAmount ? CountAndSum.round2(s.amount) : null));
            }
        }
        for (Long start : closed) {
            sessions.remove(start);
        }
    }

    /** The millisecond timer of a session end: Flink fires it at Spark's watermark one more. */
    private static long timerFor(long endMicros) {
        return -Math.floorDiv(-endMicros, MICROS_PER_MILLI) - 1;
    }

    private static Map<Long, Session> toMap(MapView<Long, Session> view) throws Exception {
        Map<Long, Session> map = new TreeMap<>();
        for (Map.Entry<Long, Session> e : view.entries()) {
            map.put(e.getKey(), e.getValue());
        }
        return map;
    }

    private static Instant instant(long micros) {
        return Instant.ofEpochSecond(
                Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000);
    }
}
