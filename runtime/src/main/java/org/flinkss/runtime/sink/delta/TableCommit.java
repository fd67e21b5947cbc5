package org.flinkss.runtime.sink.delta;

import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.io.Serializable;
import java.util.List;

/**
 * What {@link DeltaCommitter} does with a micro-batch's staged items: append its data files ({@link
 * AppendCommit}), or merge its change sets into the table's result and replace the table with it
 * ({@link CompleteCommit}).
 */
public interface TableCommit extends Serializable {

    /**
     * Commits batch {@code batchId} of query {@code queryId} as one table version with a {@code
     * txn} action; skipped (not committed) when the table already holds it.
     */
    CommitResult commit(DeltaTable table, String queryId, long batchId, List<byte[]> items)
            throws IOException;

    /**
     * An item as {@link DeltaCommitter} restores it from a checkpoint, for the table's folder as
     * this run names it ({@code folder}, a URI): an item that names a file in the table's folder
     * where it was staged names it in this one, so that a base moved or copied since commits its
     * own files, never the old place's. Items that name no file are kept as they are.
     */
    default byte[] restored(byte[] item, String folder) {
        return item;
    }
}
