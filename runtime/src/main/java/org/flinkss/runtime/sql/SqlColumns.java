package org.flinkss.runtime.sql;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import java.io.Serializable;
import java.util.stream.Collectors;

/**
 * A SQL table's columns against the columns its connector reads (a Delta table's, the landing
 * folder's schema): every column of the DDL must be one of them, of the same type (timestamps of
 * any precision up to the data's microseconds); the data may have more. A mismatch is refused in
 * one line naming the column.
 */
@Internal
public final class SqlColumns {

    private SqlColumns() {}

    /**
     * The index in {@code table} of each column of {@code declared}, checked.
     *
     * @param sqlTable the table's name in the SQL file
     * @param source what the columns are read from (a Delta table's URI), for the refusal
     */
    public static int[] match(String sqlTable, RowType declared, RowType table, String source) {
        int[] indexes = new int[declared.getFieldCount()];
        for (int i = 0; i < indexes.length; i++) {
            String name = declared.getFieldNames().get(i);
            LogicalType type = declared.getTypeAt(i);
            int at = table.getFieldIndex(name);
            if (at < 0) {
                throw new SqlTableException(
                        sqlTable,
                        "table '"
                                + sqlTable
                                + "' declares column '"
                                + name
                                + "', which "
                                + source
                                + " does not have (its columns: "
                                + describe(table)
                                + ")");
            }
            LogicalType actual = table.getTypeAt(at);
            if (!sameType(type, actual)) {
                throw new SqlTableException(
                        sqlTable,
                        "table '"
                                + sqlTable
                                + "' declares column '"
                                + name
                                + "' as "
                                + type.asSummaryString()
                                + ", and "
                                + source
                                + " holds it as "
                                + actual.copy(true).asSummaryString()
                                + hint(actual));
            }
            indexes[i] = at;
        }
        return indexes;
    }

    /** Whether a DDL type reads a table's column: same type, a timestamp at any precision. */
    public static boolean sameType(LogicalType declared, LogicalType table) {
        if (declared.is(LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE)
                || declared.is(LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE)) {
            return declared.getTypeRoot() == table.getTypeRoot();
        }
        if (declared.is(LogicalTypeRoot.VARCHAR) || declared.is(LogicalTypeRoot.CHAR)) {
            return table.is(LogicalTypeRoot.VARCHAR) || table.is(LogicalTypeRoot.CHAR);
        }
        return declared.copy(true).equals(table.copy(true));
    }

    private static String hint(LogicalType actual) {
        if (actual.is(LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE)) {
            return ": declare it TIMESTAMP_LTZ(3) (a rowtime column) or TIMESTAMP_LTZ(6)";
        }
        return ": declare it " + actual.copy(true).asSummaryString();
    }

    public static String describe(RowType table) {
        return table.getFields().stream()
                .map(f -> f.getName() + " " + f.getType().copy(true).asSummaryString())
                .collect(Collectors.joining(", "));
    }

    /** A table's rows cut to the declared columns, timestamps at the declared precision. */
    public static final class Projection implements Serializable {
        private static final long serialVersionUID = 1L;

        private final int[] indexes;
        private final RowData.FieldGetter[] getters;
        private final int[] millisOnly;

        public Projection(RowType declared, RowType table, int[] indexes) {
            this.indexes = indexes;
            this.getters = new RowData.FieldGetter[indexes.length];
            this.millisOnly = new int[indexes.length];
            for (int i = 0; i < indexes.length; i++) {
                getters[i] = RowData.createFieldGetter(table.getTypeAt(indexes[i]), indexes[i]);
                LogicalType type = declared.getTypeAt(i);
                boolean timestamp =
                        type.is(LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE)
                                || type.is(LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE);
                millisOnly[i] = timestamp && LogicalTypeChecks.getPrecision(type) <= 3 ? 1 : 0;
            }
        }

        public RowData apply(RowData row) {
            GenericRowData out = new GenericRowData(indexes.length);
            for (int i = 0; i < indexes.length; i++) {
                Object value = getters[i].getFieldOrNull(row);
                if (value instanceof TimestampData t && millisOnly[i] == 1) {
                    // A rowtime column holds milliseconds: Flink's event time has no finer unit.
                    value = TimestampData.fromEpochMillis(t.getMillisecond());
                }
                out.setField(i, value);
            }
            // A changelog source's rows (a change data feed's) keep their kind.
            out.setRowKind(row.getRowKind());
            return out;
        }
    }
}
