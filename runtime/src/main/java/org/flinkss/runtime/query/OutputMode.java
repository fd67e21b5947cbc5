package org.flinkss.runtime.query;

import java.util.Locale;

/**
 * Spark's output modes (topic 11.02): what a query writes at each batch.
 *
 * <ul>
 *   <li>{@link #APPEND} (the default): only final rows, once; an aggregation writes a window when
 *       the watermark closes it, so it needs a watermark.
 *   <li>{@link #UPDATE}: the rows that changed in the batch, partial results included, written
 *       through an upsert sink that overwrites them as they grow.
 *   <li>{@link #COMPLETE}: the whole result at every batch; the target table is replaced at each
 *       commit. Only for aggregations, whose whole state is kept: the watermark neither closes nor
 *       drops anything.
 * </ul>
 *
 * <p>Which query takes which mode, and Spark's reason when it does not, is for the queries' owner
 * to say before a run starts (the course: its query catalog).
 */
public enum OutputMode {
    APPEND,
    UPDATE,
    COMPLETE;

    public static OutputMode parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown output mode '" + text + "': use append, update or complete");
        }
    }

    /** As Spark and the command line spell it. */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
