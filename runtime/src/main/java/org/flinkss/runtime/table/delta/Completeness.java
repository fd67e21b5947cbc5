package org.flinkss.runtime.table.delta;

import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How far a commit's event time is complete: the watermark of the micro-batch it commits and, for a
 * table of windows, the bound below which its windows are final. Recorded in the commit's {@code
 * commitInfo.operationParameters} under the project's own keys ({@code flinkss.*}), next to Delta's
 * own parameters: {@code DESCRIBE HISTORY} in Spark shows them and every reader of the log ignores
 * them. No engine writes this into a table; a downstream job or a BI tool reads it to tell final
 * windows from open ones.
 *
 * <p>A window whose end is at or before {@code finalBefore} is final: no later batch changes it,
 * since a later row for it is late (Spark's rule, {@code window_end <= watermark}) and goes to the
 * table's {@code _late} table. In append mode such a window is written once, when it becomes final;
 * in update mode a row may be written before it is final, and completeness is what tells the two
 * apart. Session windows follow the same rule with the session's end.
 *
 * @param watermark Spark's watermark after the batch (epoch milliseconds), or null before the
 *     query's first watermark and for a query that has none
 * @param finalBefore rows whose {@code finalColumn} is at or before it are final, or null for a
 *     table that records no final bound (not windowed, or in complete mode, which never drops a
 *     late row)
 * @param finalColumn the column the bound is on ({@code window_end}), or null with {@code
 *     finalBefore}
 */
public record Completeness(
        @Nullable Long watermark, @Nullable Long finalBefore, @Nullable String finalColumn) {

    /** The key of the batch's watermark, ISO-8601 UTC as progress prints it. */
    public static final String WATERMARK = "flinkss.watermark";

    /** The key of the bound at or before which windows are final, ISO-8601 UTC. */
    public static final String FINAL_BEFORE = "flinkss.finalBefore";

    /** The key of the column {@link #FINAL_BEFORE} bounds. */
    public static final String FINAL_COLUMN = "flinkss.finalColumn";

    /** The column of a windowed table that {@link #finalBefore} bounds. */
    public static final String WINDOW_END = "window_end";

    /** What a commit records when nothing is known: no parameter at all. */
    public static final Completeness NONE = new Completeness(null, null, null);

    public Completeness {
        if ((finalBefore == null) != (finalColumn == null)) {
            throw new IllegalArgumentException(
                    "a final bound needs its column and a column its bound, not "
                            + finalBefore
                            + "/"
                            + finalColumn);
        }
    }

    /**
     * The completeness of a batch committed with Spark's watermark {@code watermark} (null: none
     * yet) to a table whose windows end in {@code finalColumn} (null: not a table of windows, or
     * one in complete mode): a window is final once the watermark has reached its end.
     */
    public static Completeness of(@Nullable Long watermark, @Nullable String finalColumn) {
        if (watermark == null) {
            return NONE;
        }
        long inForce = Watermarks.inForce(watermark);
        return finalColumn == null
                ? new Completeness(inForce, null, null)
                : new Completeness(inForce, inForce, finalColumn);
    }

    /** The parameters a commit records, none for {@link #NONE}. */
    public Map<String, String> parameters() {
        Map<String, String> p = new LinkedHashMap<>();
        if (watermark != null) {
            p.put(WATERMARK, Watermarks.formatInstant(watermark));
        }
        if (finalBefore != null) {
            p.put(FINAL_BEFORE, Watermarks.formatInstant(finalBefore));
            p.put(FINAL_COLUMN, finalColumn);
        }
        return p;
    }

    /** What a commit's {@code operationParameters} record, {@link #NONE} if nothing. */
    public static Completeness fromParameters(Map<String, String> parameters) {
        Long watermark = instant(parameters.get(WATERMARK));
        Long finalBefore = instant(parameters.get(FINAL_BEFORE));
        String column = parameters.get(FINAL_COLUMN);
        if (finalBefore == null || column == null) {
            return new Completeness(watermark, null, null);
        }
        return new Completeness(watermark, finalBefore, column);
    }

    /** The final bound as an instant, if the commit records one. */
    public Optional<Instant> finalBound() {
        return Optional.ofNullable(finalBefore).map(Instant::ofEpochMilli);
    }

    /** The watermark as an instant, if the commit records one. */
    public Optional<Instant> watermarkInstant() {
        return Optional.ofNullable(watermark).map(Instant::ofEpochMilli);
    }

    @Nullable
    private static Long instant(@Nullable String iso) {
        if (iso == null || iso.isEmpty()) {
            return null;
        }
        try {
            return Instant.parse(iso).toEpochMilli();
        } catch (RuntimeException e) {
            return null; // not ours, or written by another tool: nothing recorded
        }
    }
}
