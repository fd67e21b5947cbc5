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
 *
 * <p>Spark's watermark starts at the epoch ({@link #INITIAL}) and never goes lower: its offset log
 * begins with {@code batchWatermarkMs = 0} and its {@code WatermarkTracker} moves the watermark
 * only forward from there. So already in a query's first batch a row at or before
 * 1970-01-01T00:00:00Z is late for dedup and joins, and a window ending at or before it is dropped
 * (issue 37 point 2).
 */
public final class Watermarks {

    /** Spark's watermark before any batch has moved it: the epoch, 0 ms. */
    public static final long INITIAL = 0;

    /**
     * Kept where no batch has set a watermark yet (a source's state, progress): Spark's watermark
     * is then {@link #INITIAL}, and no watermark needs to be sent to Flink for it.
     */
    public static final long NONE = Long.MIN_VALUE;

    private Watermarks() {}

    /** The Flink watermark that stands for Spark's watermark {@code spark}. */
    public static long toFlink(long spark) {
        return spark == NONE ? Long.MIN_VALUE : spark - 1;
    }

    /**
     * Spark's watermark that a Flink watermark stands for; before Flink has one (an operator's
     * first rows may come before every input has sent the first watermark), Spark's is the epoch.
     */
    public static long fromFlink(long flink) {
        return flink == Long.MIN_VALUE ? INITIAL : inForce(flink + 1);
    }

    /** Spark's watermark in force for a stored one: never before the epoch. */
    public static long inForce(long sparkWatermark) {
        return Math.max(sparkWatermark, INITIAL);
    }

    /** Spark's row rule for stateful operators: a row at or before the watermark is late. */
    public static boolean isLate(long eventTime, long sparkWatermark) {
        return eventTime <= inForce(sparkWatermark);
    }

    /**
     * ISO-8601 as Spark prints it in progress; Spark shows the epoch before the first watermark.
     */
    public static String format(long sparkWatermark) {
        return formatInstant(inForce(sparkWatermark));
    }

    private static final DateTimeFormatter ISO_MILLIS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    /** An instant as Spark prints timestamps in progress: {@code 2025-03-01T00:05:00.000Z}. */
    public static String formatInstant(long epochMillis) {
        return ISO_MILLIS.format(Instant.ofEpochMilli(epochMillis));
    }
}
