package org.flinkss.course.operators;

import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.ArgumentTrait;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.FunctionHint;
import org.apache.flink.table.annotation.StateHint;
import org.apache.flink.table.functions.ProcessTableFunction;
import org.apache.flink.types.Row;

import org.flinkss.runtime.time.Watermarks;

import java.time.Instant;

/**
 * {@code dropDuplicatesWithinWatermark} for the Table API, as a process table function: call it
 * with {@code TABLE t PARTITION BY <key>} and {@code on_time => DESCRIPTOR(<rowtime>)}. The first
 * row of a key passes; the key is forgotten when the watermark reaches its event time plus the
 * delay, exactly as {@link DedupWithinWatermark} does in the DataStream API.
 */
@FunctionHint(
        output =
                @DataTypeHint(
                        "ROW<userId INT, eventType STRING, eventTs TIMESTAMP_LTZ(9), amount"
                                + " DOUBLE>"))
public final class DedupWithinWatermarkFunction extends ProcessTableFunction<Row> {

    private static final long serialVersionUID = 1L;

    /** Per key: when the key may be forgotten (Spark's watermark, in epoch milliseconds). */
    public static final class Seen {
        public Long expiresAt;
    }

    public void eval(
            Context ctx,
            @StateHint Seen seen,
            @ArgumentHint(
                            value = {
                                ArgumentTrait.SET_SEMANTIC_TABLE,
                                ArgumentTrait.REQUIRE_ON_TIME
                            },
                            name = "input")
                    Row input,
            @ArgumentHint(name = "delayMillis") Long delayMillis) {
        if (seen.expiresAt != null) {
            return;
        }
        TimeContext<Long> time = ctx.timeContext(Long.class);
        if (time.time() == NoEventTime.TIME) {
            // No event time: Spark reads it as 0, so the key expires at the epoch plus the delay.
            // Once the watermark has passed that, Spark forgets it at the end of the batch; here
            // at the next watermark, which ends the batch if the batch moves it (one that does
            // not keeps the key until the next one that does: docs/semantics.md).
            seen.expiresAt = delayMillis;
            Long flinkWatermark = time.currentWatermark();
            long watermark =
                    flinkWatermark == null
                            ? Watermarks.INITIAL
                            : Watermarks.fromFlink(flinkWatermark);
            time.registerOnTime(seen.expiresAt <= watermark ? watermark : seen.expiresAt - 1);
        } else {
            // Spark: forgotten once watermark * 1000 >= event_ts (us) + delay: the event time
            // rounded up to the millisecond, plus the delay (the on-time column is in ms).
            Instant ts = input.getFieldAs("eventTs");
            seen.expiresAt =
                    time.time()
                            + (ts != null && ts.getNano() % 1_000_000 != 0 ? 1 : 0)
                            + delayMillis;
            time.registerOnTime(seen.expiresAt - 1);
        }
        collect(
                Row.of(
                        input.getField("userId"),
                        input.getField("eventType"),
                        input.getField("eventTs"),
                        input.getField("amount")));
    }

    public void onTimer(OnTimerContext ctx, Seen seen) {
        ctx.clearAllState();
    }
}
