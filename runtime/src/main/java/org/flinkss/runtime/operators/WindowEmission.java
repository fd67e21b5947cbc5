package org.flinkss.runtime.operators;

/**
 * What a {@link WindowAggregate} writes, and when it forgets a window: the three output modes of
 * Spark, seen from the operator.
 */
public enum WindowEmission {
    /**
     * A window once, when the watermark passes its end; then its state is dropped (append mode).
     */
    FINAL,
    /**
     * A window's new value at every change (a {@code ChangesPerBatch} after it keeps the last one
     * per batch); when the watermark passes its end, its state is dropped silently (update mode).
     */
    CHANGES,
    /**
     * As {@link #CHANGES}, but every window is kept for good; a session merged into another is
     * written as a {@code DELETE} of its old row. No late row is dropped before it: Spark's
     * complete mode cannot use the watermark to drop state (complete mode).
     */
    ALL
}
