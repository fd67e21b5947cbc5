package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Append mode: a micro-batch's data files, from every writer subtask, added in one commit. */
public final class AppendCommit implements TableCommit {

    private static final long serialVersionUID = 1L;

    @Override
    public CommitResult commit(DeltaTable table, String queryId, long batchId, List<byte[]> items) {
        List<DataFile> files = new ArrayList<>(items.size());
        for (byte[] item : items) {
            files.add(DataFile.fromBytes(item));
        }
        return table.append(queryId, batchId, files);
    }

    /** The files of a batch the table already holds are unreferenced: deleted. */
    @Override
    public void discard(List<byte[]> items) throws IOException {
        for (byte[] item : items) {
            Path file = new Path(DataFile.fromBytes(item).path());
            file.getFileSystem().delete(file, false);
        }
    }
}
