package org.flinkss.connector.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.connector.delta.internal.TableFeatures;
import org.flinkss.runtime.table.delta.DeltaSchema;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Builds a {@link DeltaSink}: {@code DeltaSink.forRowData(path, rowType)}, optionally {@link
 * #tableProperty} for a table it creates, then {@link #build}, which checks the path and the
 * columns and says what to change.
 */
public final class DeltaSinkBuilder {

    private final String path;
    private final RowType rowType;
    private final Map<String, String> properties = new LinkedHashMap<>();

    DeltaSinkBuilder(String path, RowType rowType) {
        this.path = path;
        this.rowType = rowType;
    }

    /**
     * A Delta table property ({@code delta.checkpointInterval}, {@code delta.appendOnly}, ...)
     * given to the table when the sink creates it; an existing table keeps its own.
     */
    public DeltaSinkBuilder tableProperty(String key, String value) {
        if (key == null || key.isBlank() || value == null) {
            throw new IllegalArgumentException(
                    "Delta sink: a table property needs a key and a value, got '"
                            + key
                            + "' = '"
                            + value
                            + "'");
        }
        properties.put(key, value);
        return this;
    }

    /**
     * The sink.
     *
     * @throws IllegalArgumentException naming what is wrong: no path, a path that is no URI, no
     *     columns, a column of a type a Delta table here cannot hold, or columns other than those
     *     of the table at {@code path} when it exists, or a table (or table properties) with column
     *     mapping or deletion vectors
     */
    public DeltaSink build() {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException(
                    "Delta sink: no table path; give the table's folder, e.g."
                            + " DeltaSink.forRowData(\"s3://bucket/tables/events\", rowType)");
        }
        try {
            new Path(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Delta sink: table path '"
                            + path
                            + "' is not a folder or URI Flink can open: "
                            + e.getMessage(),
                    e);
        }
        if (rowType == null || rowType.getFieldCount() == 0) {
            throw new IllegalArgumentException(
                    "Delta sink for '"
                            + path
                            + "': no columns; give the RowType of the rows, e.g. RowType.of(new"
                            + " LogicalType[] {new BigIntType()}, new String[] {\"id\"})");
        }
        RowType tableType;
        try {
            // The columns as the Delta log keeps them (VARCHAR(n) and CHAR(n) are strings): what
            // the table is created with, and compared to when it exists.
            tableType = DeltaSchema.toFlink(DeltaSchema.toDelta(rowType));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Delta sink for '" + path + "': " + e.getMessage(), e);
        }
        Optional<DeltaTable.Head> head = DeltaTable.forPath(path).head();
        if (head.isPresent()) {
            TableFeatures.refuseUnsupported(
                    "Delta sink for '" + path + "'", head.get().properties());
            if (!head.get().rowType().equals(tableType)) {
                throw new IllegalArgumentException(
                        "Delta sink for '"
                                + path
                                + "': the table has columns "
                                + head.get().rowType()
                                + ", the rows "
                                + tableType
                                + "; write rows of the table's columns, or to another table");
            }
        } else {
            TableFeatures.refuseUnsupported("Delta sink for '" + path + "'", properties);
        }
        return new DeltaSink(path, rowType, tableType, Map.copyOf(properties));
    }
}
