package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.ChangeDataFeed;
import org.flinkss.runtime.table.delta.ChangeDataFeed.ChangeType;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A MERGE's change data feed, as delta-spark's {@code MergeIntoCommand} writes it into a table with
 * {@link ChangeDataFeed#PROPERTY}: each matched row's old value ({@code update_preimage}) and new
 * one ({@code update_postimage}), each deleted row ({@code delete}) and each inserted row ({@code
 * insert}), in one Parquet file under {@link ChangeDataFeed#FOLDER} with the column {@code
 * _change_type}, which the commit names in a {@code cdc} action. A MERGE that only inserts writes
 * no file: its added files are its feed. On a table without the feed it records nothing.
 */
final class ChangeFeedWriter {

    private final RowType rowType;
    private final boolean enabled;
    private final List<RowData> changes = new ArrayList<>();
    private boolean onlyInserts = true;

    ChangeFeedWriter(DeltaTable table, RowType rowType) {
        this.rowType = rowType;
        this.enabled = table.hasChangeFeed();
    }

    /** A matched row {@code before} replaced by {@code after}. */
    void updated(RowData before, RowData after) {
        add(before, ChangeType.UPDATE_PREIMAGE);
        add(after, ChangeType.UPDATE_POSTIMAGE);
    }

    void deleted(RowData row) {
        add(row, ChangeType.DELETE);
    }

    void inserted(List<RowData> rows) {
        rows.forEach(r -> add(r, ChangeType.INSERT));
    }

    /**
     * Writes the change data file, if the version needs one: the files the commit names in its
     * {@code cdc} actions (none or one).
     */
    List<DataFile> write(DeltaTable table, String queryId) throws IOException {
        if (!enabled || onlyInserts || changes.isEmpty()) {
            return List.of();
        }
        Path file =
                new Path(
                        new Path(table.path(), ChangeDataFeed.FOLDER),
                        DataFileWriter.fileNamePrefix(queryId)
                                + "cdc-"
                                + UUID.randomUUID()
                                + DataFiles.SUFFIX);
        return List.of(DataFiles.writeFile(file, ChangeDataFeed.changeFileType(rowType), changes));
    }

    private void add(RowData row, ChangeType type) {
        if (!enabled) {
            return;
        }
        onlyInserts &= type == ChangeType.INSERT;
        int n = rowType.getFieldCount();
        GenericRowData out = new GenericRowData(n + 1);
        for (int i = 0; i < n; i++) {
            out.setField(i, RowData.createFieldGetter(rowType.getTypeAt(i), i).getFieldOrNull(row));
        }
        out.setField(n, StringData.fromString(type.text()));
        changes.add(out);
    }
}
