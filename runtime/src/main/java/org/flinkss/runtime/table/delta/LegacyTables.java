package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.Warehouse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Tables of the project's earlier format (a folder of Parquet part files and a {@code _table.json},
 * see {@link Warehouse}) made Delta tables in place, as Delta's {@code CONVERT TO DELTA} does: one
 * commit, version 0, that creates the table with the folder's columns and adds its committed part
 * files as they are (no data is rewritten). For a complete-mode table that is the one file its
 * {@code _current} pointer names; the superseded file beside it stays unreferenced until a vacuum.
 * {@code _table.json} and {@code _current} are left in place (Delta readers skip {@code _} files).
 */
public final class LegacyTables {

    /** Table property: the query that writes the table (from {@code _table.json}). */
    public static final String WRITER = "flinkss.writer";

    /** Table property: {@code append} or {@code complete} (from {@code _table.json}). */
    public static final String MODE = "flinkss.mode";

    private LegacyTables() {}

    /** What a user reads when an unconverted table is opened as a Delta table. */
    public static String refusal(String tableFolder) {
        return "the table at "
                + tableFolder
                + " was written by an earlier version of flinkss (Parquet part files and a "
                + DeltaTable.LEGACY_METADATA
                + ", no _delta_log), and tables are Delta tables now. Convert it in place with"
                + " `table convert <name>` (one Delta commit adding its part files; no data is"
                + " rewritten), or delete the folder and rerun the query that writes it.";
    }

    /**
     * Converts table {@code name} of {@code warehouse} in place. Converting a table that is already
     * a Delta table does nothing.
     *
     * @return the Delta table
     */
    public static DeltaTable convert(Warehouse warehouse, String name, DeltaStorage storage) {
        java.nio.file.Path folder = warehouse.tablePath(name);
        DeltaTable table = DeltaTable.forPath(folder.toUri().toString(), storage);
        if (table.exists()) {
            return table;
        }
        RowType rowType = warehouse.rowType(name);
        List<DataFile> files = new ArrayList<>();
        for (java.nio.file.Path part : warehouse.partFiles(name)) {
            try {
                files.add(DataFiles.describe(new Path(part.toUri())));
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot convert table '"
                                + name
                                + "': cannot read part file "
                                + part
                                + ": "
                                + e.getMessage(),
                        e);
            }
        }
        table.createWith(
                rowType,
                Map.of(WRITER, warehouse.writer(name), MODE, warehouse.writtenBy(name)),
                files);
        return table;
    }
}
