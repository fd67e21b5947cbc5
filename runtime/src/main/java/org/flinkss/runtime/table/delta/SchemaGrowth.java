package org.flinkss.runtime.table.delta;

import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;

/**
 * The one schema change a Delta table here takes in place: nullable columns added after the
 * existing ones (Delta's {@code ADD COLUMNS}, Auto Loader's {@code addNewColumns}). Rows written
 * before read the new columns as null; an existing column never changes its type, its place or its
 * nullability. Delta allows this without column mapping: readers match a data file's columns by
 * name, and a file without a column reads it as null.
 */
public final class SchemaGrowth {

    private SchemaGrowth() {}

    /**
     * {@code current} with the columns of {@code more} that it lacks appended, nullable, in the
     * order of {@code more}; {@code current} itself if there are none.
     *
     * @param table the table, for the error
     * @param where what {@code more} comes from ("data file x.parquet", "query bronze"), for the
     *     error
     * @throws IllegalStateException if a column of {@code more} is in {@code current} with another
     *     type, naming the column, both types and where each comes from
     */
    public static RowType union(
            RowType current, List<RowType.RowField> more, String table, String where) {
        List<RowType.RowField> fields = new ArrayList<>(current.getFields());
        for (RowType.RowField field : more) {
            LogicalType had = typeOf(fields, field.getName());
            if (had == null) {
                fields.add(new RowType.RowField(field.getName(), field.getType().copy(true)));
            } else if (!sameType(had, field.getType())) {
                throw new IllegalStateException(
                        "column '"
                                + field.getName()
                                + "' is "
                                + had.copy(true).asSummaryString()
                                + " in table '"
                                + table
                                + "' but "
                                + field.getType().copy(true).asSummaryString()
                                + " in "
                                + where
                                + ": a column's type does not change in place; write the values"
                                + " as "
                                + had.copy(true).asSummaryString()
                                + ", rescue them (--rescued-data) or reset the query");
            }
        }
        return fields.size() == current.getFieldCount() ? current : new RowType(fields);
    }

    /**
     * Whether {@code grown} is {@code current} with nullable columns appended (or {@code current}
     * itself): the change {@link DeltaTable#addColumns} and {@link DeltaTable#appendWithSchema}
     * make.
     */
    public static boolean isGrowthOf(RowType current, RowType grown) {
        if (grown.getFieldCount() < current.getFieldCount()) {
            return false;
        }
        for (int i = 0; i < grown.getFieldCount(); i++) {
            RowType.RowField now = grown.getFields().get(i);
            if (i < current.getFieldCount()) {
                RowType.RowField was = current.getFields().get(i);
                if (!was.getName().equals(now.getName())
                        || !sameType(was.getType(), now.getType())) {
                    return false;
                }
            } else if (!now.getType().isNullable()
                    || typeOf(current.getFields(), now.getName()) != null) {
                return false;
            }
        }
        return true;
    }

    private static LogicalType typeOf(List<RowType.RowField> fields, String name) {
        for (RowType.RowField f : fields) {
            if (f.getName().equals(name)) {
                return f.getType();
            }
        }
        return null;
    }

    private static boolean sameType(LogicalType a, LogicalType b) {
        return a.copy(true).equals(b.copy(true));
    }
}
