package org.flinkss.runtime.time;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Spark's watermark, and how it maps onto Flink's.
 *
 * <p>Spark emits an append-mode window when {@code window_end <= watermark} and drops a row for a
 * window when {@code window_end <= watermark}. Flink fires a window when {@code watermark >=
 * window_end - 1} (its {@code maxTimestamp}) and treats it as late from then on. Handing Flink
 * Spark's watermark minus one millisecond makes the two agree exactly, for DataStream windows and
 * SQL window TVFs alike.
 */
public final class Watermarks {

    /** No watermark yet: nothing is late, no window is complete. */
    public static final long NONE = Long.MIN_VALUE;

    private Watermarks() {}

    /** The Flink watermark that stands for Spark's watermark {@code spark}. */
    public static long toFlink(long spark) {
        return spark == NONE ? Long.MIN_VALUE : spark - 1;
    }

    /** Spark's watermark that a Flink watermark stands for. */
    public static long fromFlink(long flink) {
        return flink == Long.MIN_VALUE ? NONE : flink + 1;
    }

    /** Spark's row rule for stateful operators: a row at or before the watermark is late. */
    public static boolean isLate(long eventTime, long sparkWatermark) {
        return sparkWatermark != NONE && eventTime <= sparkWatermark;
    }

    /**
     * ISO-8601 as Spark prints it in progress; Spark shows the epoch before the first watermark.
     */
    public static String format(long sparkWatermark) {
        return formatInstant(sparkWatermark == NONE ? 0 : sparkWatermark);
    }

    private static final DateTimeFormatter ISO_MILLIS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    /** An instant as Spark prints timestamps in progress: {@code 2025-03-01T00:05:00.000Z}. */
    public static String formatInstant(long epochMillis) {
        return ISO_MILLIS.format(Instant.ofEpochMilli(epochMillis));
    }
}
