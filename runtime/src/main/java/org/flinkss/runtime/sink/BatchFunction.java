package org.flinkss.runtime.sink;

import java.io.Serializable;
import java.util.List;

/**
 * User code for {@link ForEachBatchSink}: Spark's {@code foreachBatch(func)} with {@code
 * func(batch_df, batch_id)}.
 *
 * <p>Contract, as Spark's: a batch may be handed again after a failure (at-least-once), always with
 * the same rows and the same {@code batchId}; batches can be empty. Make the work idempotent, for
 * instance by recording {@code batchId} in the same transaction as the write.
 */
@FunctionalInterface
public interface BatchFunction<T> extends Serializable {

    void apply(List<T> rows, long batchId) throws Exception;

    /**
     * The share of writer subtask {@code writer} of a batch. With a sink parallelism above one, a
     * batch arrives in one share per writer, all with the same {@code batchId}: an idempotence
     * record must then be keyed by both, as {@code JdbcUpsert} does.
     */
    default void apply(List<T> rows, long batchId, int writer) throws Exception {
        apply(rows, batchId);
    }
}
