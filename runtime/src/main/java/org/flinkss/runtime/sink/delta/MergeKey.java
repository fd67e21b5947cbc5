package org.flinkss.runtime.sink.delta;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.DataFile;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The columns a MERGE matches rows on ({@code ON t.c = s.c AND ...}): one for {@code latest}'s
 * {@code event_id}, several for update mode's window start, end and grouping key. A key with a null
 * in any column matches nothing, as in SQL ({@code NULL = NULL} is not true).
 */
final class MergeKey {

    private final List<String> columns;
    private final RowType keyType;
    private final RowData.FieldGetter[] inRow;
    private final RowData.FieldGetter[] inKeyRow;

    MergeKey(RowType rowType, List<String> columns) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a MERGE needs at least one key column");
        }
        this.columns = List.copyOf(columns);
        List<RowType.RowField> fields = new ArrayList<>();
        inRow = new RowData.FieldGetter[columns.size()];
        inKeyRow = new RowData.FieldGetter[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            int at = rowType.getFieldIndex(columns.get(i));
            if (at < 0) {
                throw new IllegalArgumentException(
                        "key column '"
                                + columns.get(i)
                                + "' is not a column of "
                                + rowType.getFieldNames());
            }
            fields.add(rowType.getFields().get(at));
            inRow[i] = RowData.createFieldGetter(rowType.getTypeAt(at), at);
            inKeyRow[i] = RowData.createFieldGetter(rowType.getTypeAt(at), i);
        }
        this.keyType = new RowType(fields);
    }

    List<String> columns() {
        return columns;
    }

    /** The key columns alone, in key order: what is read of a file to find its keys. */
    RowType keyType() {
        return keyType;
    }

    /** The key of a row of the table, or null if a key column is null (it matches nothing). */
    @Nullable
    List<Object> of(RowData row) {
        return key(row, inRow);
    }

    /** The key of a row of {@link #keyType}, or null if a key column is null. */
    @Nullable
    List<Object> ofKeyRow(RowData keyRow) {
        return key(keyRow, inKeyRow);
    }

    private static List<Object> key(RowData row, RowData.FieldGetter[] getters) {
        List<Object> key = new ArrayList<>(getters.length);
        for (RowData.FieldGetter getter : getters) {
            Object value = getter.getFieldOrNull(row);
            if (value == null) {
                return null;
            }
            key.add(value);
        }
        return key;
    }

    /**
     * Whether {@code file} may hold one of {@code keys}: false only when, for each key, the file's
     * statistics put a key column's value outside the file's minimum and maximum. A file without
     * statistics for a column (none recorded, a timestamp, a long string) may hold any value of it.
     */
    boolean mayHold(DataFile file, Collection<List<Object>> keys) {
        for (List<Object> key : keys) {
            if (mayHold(file, key)) {
                return true;
            }
        }
        return false;
    }

    private boolean mayHold(DataFile file, List<Object> key) {
        for (int i = 0; i < columns.size(); i++) {
            Object min = file.minValues().get(columns.get(i));
            Object max = file.maxValues().get(columns.get(i));
            Object value = key.get(i);
            Integer belowMin = min == null ? null : compare(value, min);
            Integer aboveMax = max == null ? null : compare(value, max);
            if ((belowMin != null && belowMin < 0) || (aboveMax != null && aboveMax > 0)) {
                return false;
            }
        }
        return true;
    }

    /** A key value against a statistic, or null when the two cannot be compared here. */
    @Nullable
    static Integer compare(Object value, Object statistic) {
        if (value instanceof StringData && statistic instanceof String s) {
            return value.toString().compareTo(s);
        }
        if (value instanceof Number v && statistic instanceof Number s) {
            if (isIntegral(v) && isIntegral(s)) {
                return Long.compare(v.longValue(), s.longValue());
            }
            return Double.compare(v.doubleValue(), s.doubleValue());
        }
        return null;
    }

    private static boolean isIntegral(Number n) {
        return n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte;
    }
}
