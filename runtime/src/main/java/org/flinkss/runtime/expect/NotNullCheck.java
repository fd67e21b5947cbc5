package org.flinkss.runtime.expect;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.flinkss.runtime.PermanentFailure;

import java.util.List;
import java.util.StringJoiner;

/**
 * A changelog's rows checked against a Delta table's {@code NOT NULL} columns: a row that the table
 * will hold ({@code +I}, {@code +U}) with a null in one fails the job before the batch commits,
 * naming the constraint ({@code <column>_not_null}, as {@link TableConstraints#rules} names it),
 * the table and the row. Retractions ({@code -U}, {@code -D}) are let through: they remove a row,
 * they do not write one. Complete mode's changelog goes through this (a {@code CHECK} would need
 * the Table API's evaluation, which that changelog does not pass through).
 */
public final class NotNullCheck extends RichMapFunction<RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final RowType rowType;
    private final List<String> columns;

    private transient int[] positions;
    private transient RowData.FieldGetter[] getters;

    /**
     * @param table the table's name, for the message
     * @param rowType the changelog's columns
     * @param columns the table's {@code NOT NULL} columns, each one of {@code rowType}'s
     * @throws IllegalArgumentException naming a column that {@code rowType} does not have
     */
    public NotNullCheck(String table, RowType rowType, List<String> columns) {
        for (String column : columns) {
            if (rowType.getFieldIndex(column) < 0) {
                throw new IllegalArgumentException(
                        "table '"
                                + table
                                + "' has the NOT NULL column '"
                                + column
                                + "', which the query does not write (it writes "
                                + rowType.getFieldNames()
                                + ")");
            }
        }
        this.table = table;
        this.rowType = rowType;
        this.columns = List.copyOf(columns);
    }

    @Override
    public void open(OpenContext openContext) {
        positions = columns.stream().mapToInt(rowType::getFieldIndex).toArray();
        getters = new RowData.FieldGetter[rowType.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(rowType.getTypeAt(i), i);
        }
    }

    @Override
    public RowData map(RowData row) {
        RowKind kind = row.getRowKind();
        if (kind == RowKind.UPDATE_BEFORE || kind == RowKind.DELETE) {
            return row;
        }
        for (int c = 0; c < positions.length; c++) {
            if (row.isNullAt(positions[c])) {
                throw new PermanentFailure(failure(columns.get(c), row));
            }
        }
        return row;
    }

    private String failure(String column, RowData row) {
        StringJoiner values = new StringJoiner(", ", "{", "}");
        for (int i = 0; i < getters.length; i++) {
            Object v = getters[i].getFieldOrNull(row);
            values.add(rowType.getFieldNames().get(i) + "=" + (v == null ? "null" : v));
        }
        return "constraint '"
                + column
                + "_not_null' (`"
                + column
                + "` IS NOT NULL) of Delta table '"
                + table
                + "' failed for the row "
                + values
                + ": the batch is not committed, the table and the checkpoint stay as they were."
                + " Fix the data or the query";
    }
}
