package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

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

    /**
     * A staged data file, in the table's folder of this run ({@link DataFileWriter} writes there).
     */
    @Override
    public byte[] restored(byte[] item, String folder) {
        DataFile file = DataFile.fromBytes(item);
        String here = new Path(folder, file.name()).toString();
        return here.equals(file.path()) ? item : file.withPath(here).toBytes();
    }
}
