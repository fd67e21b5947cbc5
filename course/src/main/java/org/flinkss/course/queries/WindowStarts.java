package org.flinkss.course.queries;

import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.functions.TableFunction;

import org.flinkss.runtime.time.Watermarks;

import java.time.Instant;

/** The starts of the tumbling or sliding windows that contain a timestamp, as Spark's window(). */
public final class WindowStarts extends TableFunction<Long> {
    private final long size;
    private final long slide;

    public WindowStarts(long size, long slide) {
        this.size = size;
        this.slide = slide;
    }

    public void eval(@DataTypeHint("TIMESTAMP_LTZ(3)") Instant timestamp) {
        eval(timestamp, null);
    }

    /**
     * Only the windows that have not ended by Flink's watermark {@code watermark} (null: none yet,
     * Spark's is then the epoch): Spark's watermark is Flink's plus one, and a window has ended
     * when its end is at or before Spark's.
     */
    public void eval(
            @DataTypeHint("TIMESTAMP_LTZ(3)") Instant timestamp,
            @DataTypeHint("TIMESTAMP_LTZ(3)") Instant watermark) {
        if (timestamp == null) {
            return;
        }
        long sparkWatermark =
                watermark == null
                        ? Watermarks.INITIAL
                        : Watermarks.fromFlink(watermark.toEpochMilli());
        long t = timestamp.toEpochMilli();
        for (long start = Math.floorDiv(t, slide) * slide; start > t - size; start -= slide) {
            if (!Watermarks.isLate(start + size, sparkWatermark)) {
                collect(start);
            }
        }
    }
}
