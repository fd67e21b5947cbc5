package org.flinkss.runtime.table;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Replaces some rows of a table outside any stream, in one Delta commit: the data files that hold a
 * row to replace are removed, their other rows written to a new file, and the new rows to another.
 * A reader sees the table before or after, never in between. The caller holds the writer query's
 * lock (or is the table's writing command).
 */
public final class TableRewriter {

    private final Warehouse warehouse;
    private final String table;

    public TableRewriter(Warehouse warehouse, String table) {
        this.warehouse = warehouse;
        this.table = table;
    }

    /** What a replace did. */
    public static final class Replaced {
        public final long removed;
        public final long written;

        Replaced(long removed, long written) {
            this.removed = removed;
            this.written = written;
        }
    }

    public Replaced replace(Predicate<RowData> toReplace, List<RowData> newRows) {
        DeltaTable delta = warehouse.existing(table);
        DeltaSnapshot snapshot = delta.snapshot();
        RowType type = snapshot.rowType();
        Path folder = new Path(warehouse.folder(table));
        Set<String> obsolete = new HashSet<>();
        List<DataFile> added = new ArrayList<>();
        long removed = 0;
        try {
            for (DataFile file : snapshot.files()) {
                List<RowData> rows = DataFiles.read(new Path(file.path()), type);
                List<RowData> kept = new ArrayList<>();
                for (RowData row : rows) {
                    if (toReplace.test(row)) {
                        removed++;
                    } else {
                        kept.add(row);
                    }
                }
                if (kept.size() < rows.size()) {
                    obsolete.add(file.name());
                    if (!kept.isEmpty()) {
                        added.add(write(folder, type, kept));
                    }
                }
            }
            if (!newRows.isEmpty()) {
                added.add(write(folder, type, newRows));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot rewrite table '" + table + "' in " + folder + ": " + e.getMessage(), e);
        }
        if (!obsolete.isEmpty() || !added.isEmpty()) {
            delta.rewrite(obsolete, added);
        }
        return new Replaced(removed, newRows.size());
    }

    private static DataFile write(Path folder, RowType type, List<RowData> rows)
            throws IOException {
        return DataFiles.writeFile(
                new Path(folder, "rewrite-" + UUID.randomUUID() + DataFiles.SUFFIX), type, rows);
    }
}
