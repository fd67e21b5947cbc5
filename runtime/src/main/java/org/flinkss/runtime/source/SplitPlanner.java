package org.flinkss.runtime.source;

import org.apache.flink.core.io.SimpleVersionedSerializer;

import org.flinkss.runtime.progress.SourcePlan;
import org.flinkss.runtime.trigger.Trigger;

import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides what each micro-batch reads: Spark's offsets for one source. It runs in the split
 * enumerator, which keeps its committed position in the query's checkpoints.
 *
 * <p>The life of a planner in a run: {@link #restore} the committed position, then for every
 * trigger {@link #refreshTarget()} (what exists now: an availableNow run calls it once, at its
 * start, so it never reads data that arrived later), then {@link #nextBatch} until it returns
 * nothing; each batch is {@link #commit committed} when its records are all emitted.
 */
public interface SplitPlanner<S extends WorkSplit> extends Serializable {

    /** Restores the committed position, or the starting one if {@code committed} is null. */
    void restore(byte[] committed) throws IOException;

    /** The committed position: everything that committed batches read. */
    byte[] committed() throws IOException;

    /** Looks at the source again: later batches may read up to what exists now. */
    void refreshTarget() throws IOException;

    /**
     * The splits of the next batch: beyond the committed position, within the target, and within
     * {@code limit} (the limits that mean something for this source: files or partitions, bytes,
     * offsets); empty when caught up with the target.
     */
    List<S> nextBatch(long batchId, ReadLimit limit) throws IOException;

    /** True when {@link #nextBatch} would return nothing: caught up with the target. */
    boolean nextBatchIsEmpty();

    /** Moves the committed position past the splits of a batch whose records are all emitted. */
    void commit(List<S> batch) throws IOException;

    /**
     * What the batches from the committed position up to the target read under {@code limit}: how
     * many batches, files and bytes, or offsets, or table versions. Called once, after the first
     * {@link #refreshTarget()} of an availableNow run, so that the run can say what it is about to
     * do; empty if the planner cannot tell.
     */
    default Optional<SourcePlan.Backlog> backlog(ReadLimit limit) throws IOException {
        return Optional.empty();
    }

    /**
     * How often a real-time run looks at this source while it waits for new data: {@link
     * Trigger#REAL_TIME_POLL}, unless a look costs more than it is worth that often.
     */
    default Duration realTimeLook() {
        return Trigger.REAL_TIME_POLL;
    }

    /**
     * Whether this source can run under {@code --trigger real-time}: it can look for new data every
     * few milliseconds at a small cost (Kafka, the landing folder). Others are refused.
     */
    default boolean readsInRealTime() {
        return false;
    }

    /** Called in the enumerator of a real-time run before its first refresh. */
    default void startRealTime() {}

    /** Releases what the planner keeps open between refreshes; the enumerator is closing. */
    default void close() {}

    /** Spark's {@code startOffset}/{@code endOffset} of the committed position, for progress. */
    Map<String, Object> describeOffsets();

    /** Serializes this planner's splits in enumerator and reader state. */
    SimpleVersionedSerializer<S> splitSerializer();
}
