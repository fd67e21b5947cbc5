package org.flinkss.runtime.time;

import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;

/**
 * Spark's {@code spark.sql.streaming.multipleWatermarkPolicy}: how a query with several {@code
 * withWatermark} nodes picks its one watermark from theirs at the end of a batch ({@code
 * MultipleWatermarkPolicy} in Spark's {@code WatermarkTracker}).
 *
 * <p>{@link #MIN}, Spark's default, follows the slowest input: no input's rows are dropped before
 * that input's own watermark passes them. {@link #MAX} follows the fastest: state and output move
 * with the newest input, and rows of a slower input are dropped as late once the fastest one has
 * passed them. Spark records the policy in its checkpoint (the offset log's {@code conf}) and keeps
 * it for the checkpoint's life; a checkpoint made before the conf existed reads as {@code min}.
 */
public enum WatermarkPolicy {
    MIN,
    MAX;

    /** The Spark configuration key this policy stands for, as Spark's offset log records it. */
    public static final String SPARK_CONF = "spark.sql.streaming.multipleWatermarkPolicy";

    /** Spark's default, and what a checkpoint that recorded no policy was made with. */
    public static final WatermarkPolicy DEFAULT = MIN;

    /**
     * The global watermark from the nodes' watermarks ({@code chooseGlobalWatermark}).
     *
     * @throws IllegalArgumentException if there is no node
     */
    public long choose(Collection<Long> nodeWatermarks) {
        if (nodeWatermarks.isEmpty()) {
            throw new IllegalArgumentException(
                    "a watermark policy chooses among nodes: none given");
        }
        long chosen = this == MIN ? Long.MAX_VALUE : Long.MIN_VALUE;
        for (long w : nodeWatermarks) {
            chosen = this == MIN ? Math.min(chosen, w) : Math.max(chosen, w);
        }
        return chosen;
    }

    /**
     * As Spark spells it in its conf and this project on its command line: {@code min}, {@code
     * max}.
     */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The policy named {@code text}, in any case, as Spark reads its conf.
     *
     * @throws IllegalArgumentException naming the values allowed
     */
    public static WatermarkPolicy parse(String text) {
        for (WatermarkPolicy p : values()) {
            if (p.text().equalsIgnoreCase(text.trim())) {
                return p;
            }
        }
        throw new IllegalArgumentException(
                "'"
                        + text
                        + "' is no watermark policy: "
                        + SPARK_CONF
                        + " is one of "
                        + Arrays.stream(values()).map(WatermarkPolicy::text).toList());
    }
}
