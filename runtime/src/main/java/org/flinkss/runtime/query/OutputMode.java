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

    /** Refuses {@code complete} for a query without aggregation, with Spark's reason. */
    public void refuseCompleteWithoutAggregation(String query) {
        if (this == COMPLETE) {
            throw new IllegalArgumentException(
                    "query '"
                            + query
                            + "' cannot run in complete mode: complete output mode needs a"
                            + " streaming aggregation (Spark: \"Complete output mode not supported"
                            + " when there are no streaming aggregations\"); it has none. Use"
                            + " --output-mode append");
        }
    }

    /**
     * Refuses {@code update} and {@code complete} for a query without aggregation whose sink is a
     * table of the warehouse, with Spark's reasons.
     */
    public void requireAppendForTableSink(String query, String table) {
        refuseCompleteWithoutAggregation(query);
        if (this == UPDATE) {
            throw new IllegalArgumentException(
                    "query '"
                            + query
                            + "' cannot run in update mode: its sink, the table "
                            + table
                            + ", takes appends only (as a Delta table sink: append or complete)."
                            + " Without an aggregation update writes the same rows as append: use"
                            + " --output-mode append");
        }
    }
}
