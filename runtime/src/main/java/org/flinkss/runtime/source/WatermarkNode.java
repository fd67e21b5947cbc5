package org.flinkss.runtime.source;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * One {@code withWatermark} of a query on a source, as Spark's {@code EventTimeWatermarkExec}: the
 * rows that reach it (the filters the query applies before it) and its delay. Its watermark is
 * {@code max(event time of the rows that reached it) - delay}; a query with several nodes on its
 * sources takes the minimum across them (Spark's {@code WatermarkTracker} under the default {@code
 * spark.sql.streaming.multipleWatermarkPolicy=min}), and a node that has seen no row yet holds the
 * query's watermark where it is; under {@code --watermark-policy max}, the maximum across the nodes
 * of one source ({@link org.flinkss.runtime.time.WatermarkPolicy}).
 *
 * @param <T> the source's records
 */
public final class WatermarkNode<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Which of the source's records reach the node: the filters before the withWatermark. */
    @FunctionalInterface
    public interface Reaches<T> extends Serializable {
        boolean test(T record);
    }

    private final String name;
    private final Reaches<T> reaches;
    private final long delayMillis;

    private WatermarkNode(String name, Reaches<T> reaches, long delayMillis) {
        this.name = Objects.requireNonNull(name);
        this.reaches = Objects.requireNonNull(reaches);
        if (delayMillis < 0) {
            throw new IllegalArgumentException(
                    "watermark node '" + name + "': the delay must not be negative");
        }
        this.delayMillis = delayMillis;
    }

    /** A {@code withWatermark} that the records {@code reaches} accepts reach. */
    public static <T> WatermarkNode<T> of(String name, Reaches<T> reaches, Duration delay) {
        return new WatermarkNode<>(name, reaches, delay.toMillis());
    }

    /** A {@code withWatermark} straight on the source: every record reaches it. */
    public static <T> WatermarkNode<T> allRows(Duration delay) {
        return allRows(delay.toMillis());
    }

    /** As {@link #allRows(Duration)}, the delay in milliseconds. */
    public static <T> WatermarkNode<T> allRows(long delayMillis) {
        return new WatermarkNode<>("all rows", record -> true, delayMillis);
    }

    public String name() {
        return name;
    }

    public boolean reaches(T record) {
        return reaches.test(record);
    }

    public long delayMillis() {
        return delayMillis;
    }

    @Override
    public String toString() {
        return name + " (delay " + delayMillis + " ms)";
    }
}
