package org.flinkss.runtime.source;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One unit of a micro-batch: a file, or a range of a Kafka partition. A split belongs to exactly
 * one batch; its position says how many records of it were already emitted, so that a reader
 * restored from a checkpoint skips them.
 */
public interface WorkSplit extends SourceSplit {

    /** The micro-batch this split was planned in. */
    long batchId();

    /** Records of this split already emitted (0 for a fresh split). */
    long position();

    /** The same split, with its position moved to {@code position}. */
    WorkSplit withPosition(long position);

    /** A short text for progress and errors (a path, topic-partition and offsets). */
    String describe();

    /**
     * The split's size in bytes, or -1 when the planner did not say: {@link ReadOrder#CONTIGUOUS}
     * gives readers runs of about equal bytes when every split of a batch has one, of equal counts
     * otherwise.
     */
    default long sizeInBytes() {
        return -1;
    }

    /** Where the split's data is (a file's path): what progress and skip records name. */
    default String location() {
        return describe();
    }
}
