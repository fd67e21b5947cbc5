package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;

import java.util.Map;

/**
 * The Delta table features this connector cannot honour, refused by the table's properties before a
 * job starts. Both sink and source read and write Parquet columns by their names and read each
 * listed data file whole, so a table that renames columns physically ({@code
 * delta.columnMapping.mode} {@code name} or {@code id}) or hides rows of its files with deletion
 * vectors ({@code delta.enableDeletionVectors}) would give wrong rows. A table whose deletion
 * vectors were enabled once and turned off since may still hold some: not detected here.
 */
@Internal
public final class TableFeatures {

    public static final String COLUMN_MAPPING = "delta.columnMapping.mode";
    public static final String DELETION_VECTORS = "delta.enableDeletionVectors";

    private TableFeatures() {}

    /**
     * @param what who refuses, with the table: {@code "Delta sink for '<path>'"}
     * @throws IllegalArgumentException naming the property and what to do
     */
    public static void refuseUnsupported(String what, Map<String, String> properties) {
        String mapping = properties.getOrDefault(COLUMN_MAPPING, "none");
        if (!mapping.equalsIgnoreCase("none")) {
            throw new IllegalArgumentException(
                    what
                            + ": the table has "
                            + COLUMN_MAPPING
                            + " = "
                            + mapping
                            + ", which this connector does not support (it reads and writes"
                            + " columns by name); use a table without column mapping");
        }
        if (Boolean.parseBoolean(properties.getOrDefault(DELETION_VECTORS, "false"))) {
            throw new IllegalArgumentException(
                    what
                            + ": the table has "
                            + DELETION_VECTORS
                            + " = true, which this connector does not support (it reads each data"
                            + " file whole); use a table without deletion vectors");
        }
    }
}
