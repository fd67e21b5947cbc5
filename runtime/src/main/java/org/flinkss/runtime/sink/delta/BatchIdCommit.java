package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Append mode for a table whose last column is the id of the micro-batch that wrote the row ({@code
 * <table>_rejected}'s {@code _batch_id}): the writers stage rows with that column null, since a
 * batch's id is known only when it is closed, and the commit writes each staged file again with the
 * batch's id in it, then appends those files as {@link AppendCommit} does. A rewritten file is
 * named after its staged one and the batch ({@code <staged>-batch<N>.parquet}), so a commit tried
 * again writes the same file; the staged files stay in the table's folder, never in its log, until
 * {@code table vacuum} deletes them after its retention. A batch the table already holds is not
 * rewritten.
 */
public final class BatchIdCommit implements TableCommit {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;

    /**
     * @param rowType the table's columns, the batch id's ({@code BIGINT}) last
     */
    public BatchIdCommit(RowType rowType) {
        this.rowType = rowType;
    }

    @Override
    public CommitResult commit(DeltaTable table, String queryId, long batchId, List<byte[]> items)
            throws IOException {
        OptionalLong held = table.committedBatch(queryId);
        if (held.isPresent() && held.getAsLong() >= batchId) {
            return new AppendCommit().commit(table, queryId, batchId, items);
        }
        List<DataFile> files = new ArrayList<>(items.size());
        for (byte[] item : items) {
            files.add(stamped(DataFile.fromBytes(item), batchId));
        }
        files.sort(DataFileWriter.COMMIT_ORDER);
        return table.append(queryId, batchId, AppendCommit.atCommitTime(files));
    }

    private DataFile stamped(DataFile staged, long batchId) throws IOException {
        Path from = new Path(staged.path());
        String name = staged.name();
        int dot = name.lastIndexOf('.');
        String stampedName =
                (dot > 0 ? name.substring(0, dot) : name)
                        + "-batch"
                        + batchId
                        + (dot > 0 ? name.substring(dot) : "");
        Path to = new Path(from.getParent(), stampedName);
        FileSystem fs = to.getFileSystem();
        if (fs.exists(to)) {
            fs.delete(to, false); // an earlier try's, never committed: this batch is not held
        }
        int last = rowType.getFieldCount() - 1;
        RowData.FieldGetter[] getters = new RowData.FieldGetter[last];
        for (int i = 0; i < last; i++) {
            getters[i] = RowData.createFieldGetter(rowType.getTypeAt(i), i);
        }
        List<RowData> rows = new ArrayList<>();
        for (RowData row : DataFiles.read(from, rowType)) {
            GenericRowData copy = new GenericRowData(row.getRowKind(), rowType.getFieldCount());
            for (int i = 0; i < last; i++) {
                copy.setField(i, getters[i].getFieldOrNull(row));
            }
            copy.setField(last, batchId);
            rows.add(copy);
        }
        return DataFiles.writeFile(to, rowType, rows);
    }

    @Override
    public byte[] restored(byte[] item, String folder) {
        return new AppendCommit().restored(item, folder);
    }
}
