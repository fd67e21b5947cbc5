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

    /**
     * Adds the batch's files in {@link DataFileWriter#COMMIT_ORDER}, whatever order the writers'
     * descriptions arrived in, each with the commit's time as its modification time: a stream that
     * starts from the table's snapshot lists it by modification time, then path (Spark's {@code
     * DeltaSource}), which is then the order of the commits and, within one, of their log entries.
     */
    @Override
    public CommitResult commit(DeltaTable table, String queryId, long batchId, List<byte[]> items) {
        List<DataFile> files = new ArrayList<>(items.size());
        for (byte[] item : items) {
            files.add(DataFile.fromBytes(item));
        }
        files.sort(DataFileWriter.COMMIT_ORDER);
        return table.append(queryId, batchId, atCommitTime(files));
    }

    /** The files, in their order, each with the commit's time as its modification time. */
    static List<DataFile> atCommitTime(List<DataFile> files) {
        long committedAt = System.currentTimeMillis();
        for (DataFile file : files) {
            committedAt = Math.max(committedAt, file.modificationTime());
        }
        long time = committedAt;
        return files.stream().map(f -> f.withModificationTime(time)).toList();
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
