package org.flinkss.runtime.table;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.function.SerializableFunction;

import java.io.Serializable;
import java.util.List;

/**
 * A table of the warehouse: its name, its columns, and how a record of the stream becomes a row.
 * Rows are Flink's {@link RowData}, so that the same Parquet files serve the DataStream API, the
 * Table API and the command line.
 */
public final class TableDef<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final RowType rowType;
    private final SerializableFunction<T, RowData> toRow;

    public TableDef(String name, RowType rowType, SerializableFunction<T, RowData> toRow) {
        this.name = name;
        this.rowType = rowType;
        this.toRow = toRow;
    }

    public static RowType columns(List<String> names, LogicalType... types) {
        return RowType.of(types, names.toArray(new String[0]));
    }

    public String name() {
        return name;
    }

    public RowType rowType() {
        return rowType;
    }

    public RowData toRow(T record) {
        return toRow.apply(record);
    }

    public SerializableFunction<T, RowData> rowFunction() {
        return toRow;
    }
}
