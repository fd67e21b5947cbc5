package org.flinkss.runtime.table;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * The static side of a stream-static join: a warehouse table held in memory by a key column, and
 * read again when the table has a new version. Spark reads the static side fresh for every
 * micro-batch; callers refresh at batch boundaries.
 */
public final class StaticTable implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The warehouse's location as a URI ({@code file:/...} or {@code s3://bucket/prefix}). */
    private final String warehouse;

    private final String table;
    private final String keyColumn;

    private transient Map<Object, RowData> rows;
    private transient long version = -1;
    private transient RowType rowType;

    /**
     * A table of a warehouse anywhere Flink's file systems reach: a local folder or an object
     * store; each task reads it through its own file systems (on a cluster, its S3 plugin).
     */
    public StaticTable(Path warehouse, String table, String keyColumn) {
        this.warehouse = warehouse.toUri().toString();
        this.table = table;
        this.keyColumn = keyColumn;
    }

    /** Reads the table if it is new or has a new version since the last read. */
    public void refresh() {
        Warehouse w = new Warehouse(new Path(warehouse));
        if (!w.exists(table)) {
            rows = Map.of();
            version = -1;
            return;
        }
        DeltaTable delta = w.delta(table);
        if (rows != null && version >= 0 && delta.latestVersionFrom(version) == version) {
            return;
        }
        DeltaSnapshot snapshot = delta.snapshot();
        rowType = snapshot.rowType();
        int key = rowType.getFieldIndex(keyColumn);
        Map<Object, RowData> read = new HashMap<>();
        for (RowData row : snapshot.rows()) {
            read.put(RowValues.get(row, key, rowType.getTypeAt(key)), row);
        }
        rows = read;
        version = snapshot.version();
    }

    /** The row for a key, or null (a left join then gives nulls). */
    public RowData get(Object key) {
        if (rows == null) {
            refresh();
        }
        return key == null ? null : rows.get(key);
    }

    /** A column of a row by name, as a Java value. */
    public Object column(RowData row, String column) {
        int i = rowType.getFieldIndex(column);
        return RowValues.get(row, i, rowType.getTypeAt(i));
    }
}
