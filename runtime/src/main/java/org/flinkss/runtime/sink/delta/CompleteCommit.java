package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Complete mode, as Spark's complete mode overwrites a Delta table at every batch: the batch's
 * change sets (the last value of every key that changed, deletes included) are merged into the
 * table's current result, which is written to one new data file, and one commit removes every file
 * of the table and adds it. Every reader sees the old result or the new one; the old files stay for
 * readers of older versions until a vacuum. A batch that changed nothing commits no file, only its
 * {@code txn}. Changes carry whole values, not increments, so merging a batch again gives the same
 * result.
 */
public final class CompleteCommit implements TableCommit {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final int[] keyFields;

    public CompleteCommit(RowType rowType, List<String> keyColumns) {
        this.rowType = rowType;
        this.keyFields = keyColumns.stream().mapToInt(rowType::getFieldIndex).toArray();
    }

    @Override
    public CommitResult commit(DeltaTable table, String queryId, long batchId, List<byte[]> items)
            throws IOException {
        List<RowData> changes = ChangeSets.rows(rowType, items);
        if (changes.isEmpty()) {
            return table.append(queryId, batchId, List.of());
        }
        RowData.FieldGetter[] keys = new RowData.FieldGetter[keyFields.length];
        for (int i = 0; i < keyFields.length; i++) {
            keys[i] = RowData.createFieldGetter(rowType.getTypeAt(keyFields[i]), keyFields[i]);
        }
        Map<List<Object>, RowData> result = new LinkedHashMap<>();
        for (RowData row : table.snapshot().rows()) {
            result.put(key(row, keys), row);
        }
        for (RowData change : changes) {
            if (change.getRowKind() == RowKind.DELETE) {
                result.remove(key(change, keys));
            } else {
                change.setRowKind(RowKind.INSERT);
                result.put(key(change, keys), change);
            }
        }
        Path file =
                new Path(
                        table.path(),
                        DataFileWriter.fileNamePrefix(queryId)
                                + "complete-"
                                + UUID.randomUUID()
                                + DataFiles.SUFFIX);
        DataFile written = DataFiles.writeFile(file, rowType, result.values());
        CommitResult committed = table.overwrite(queryId, batchId, List.of(written));
        if (!committed.committed()) {
            file.getFileSystem().delete(file, false);
        }
        return committed;
    }

    private static List<Object> key(RowData row, RowData.FieldGetter[] keys) {
        List<Object> key = new ArrayList<>(keys.length);
        for (RowData.FieldGetter getter : keys) {
            key.add(getter.getFieldOrNull(row));
        }
        return key;
    }
}
