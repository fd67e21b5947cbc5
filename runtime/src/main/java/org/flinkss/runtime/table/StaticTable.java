package org.flinkss.runtime.table;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The static side of a stream-static join: a warehouse table held in memory by a key column, and
 * read again when its committed part files change. Spark reads the static side fresh for every
 * micro-batch; callers refresh at batch boundaries.
 */
public final class StaticTable implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String warehouse;
    private final String table;
    private final String keyColumn;

    private transient Map<Object, RowData> rows;
    private transient List<Path> files;
    private transient RowType rowType;

    public StaticTable(Path warehouse, String table, String keyColumn) {
        this.warehouse = warehouse.toAbsolutePath().toString();
        this.table = table;
        this.keyColumn = keyColumn;
    }

    /** Reads the table if it is new or its files changed since the last read. */
    public void refresh() {
        Warehouse w = new Warehouse(Paths.get(warehouse));
        if (!w.exists(table)) {
            rows = Map.of();
            files = List.of();
            return;
        }
        List<Path> now = w.partFiles(table);
        if (rows != null && now.equals(files)) {
            return;
        }
        rowType = w.rowType(table);
        int key = rowType.getFieldIndex(keyColumn);
        Map<Object, RowData> read = new HashMap<>();
        for (RowData row : w.rows(table)) {
            read.put(RowValues.get(row, key, rowType.getTypeAt(key)), row);
        }
        rows = read;
        files = now;
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
