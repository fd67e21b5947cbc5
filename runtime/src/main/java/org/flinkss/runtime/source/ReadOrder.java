package org.flinkss.runtime.source;

/**
 * Which reader reads which split of a micro-batch. A planner lists a batch's splits in a stable
 * order (the landing files as Spark's scan orders them, a table's files as its log added them);
 * this says how that order survives the parallel readers, so that a rerun of the same input makes
 * the same tables, at any parallelism and however fast each reader happens to be.
 *
 * <ul>
 *   <li>{@link #ANY_READER}: the next split goes to whichever reader is idle first. Fast, and the
 *       right choice when nothing downstream depends on which rows share a reader.
 *   <li>{@link #CONTIGUOUS}: the batch is cut into one contiguous run of splits per reader, of
 *       about equal bytes, and each reader reads its run in order. A table writer chained to the
 *       readers then writes, subtask after subtask, the batch's rows in the planner's order, and
 *       the table's committer keeps that order ({@code DeltaCommitter}): the table's log lists the
 *       rows as the planner did, whatever the parallelism.
 *   <li>{@link #ONE_READER}: reader 0 reads every split, one after the other, in the planner's
 *       order. A keyed operator downstream then receives the rows of each key in that order: the
 *       first row of a key is the first in the source's order (Spark's dedup keeps it), the last is
 *       the last (an upsert keeps it). The other readers are idle; the work after the read stays
 *       parallel.
 * </ul>
 */
public enum ReadOrder {
    ANY_READER,
    CONTIGUOUS,
    ONE_READER
}
