package org.flinkss.runtime.table;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Replaces some rows of a table outside any stream: rewrites the part files that hold a row to
 * replace (keeping their other rows) and adds one file with the new rows. New files are written
 * hidden and renamed in before the old ones go, so no row is ever missing; a reader that lists the
 * table during the swap, a matter of milliseconds, may see a replaced row twice. The caller holds
 * the writer query's lock.
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
        RowType type = warehouse.rowType(table);
        Path dir = warehouse.tablePath(table);
        List<Path> obsolete = new ArrayList<>();
        List<Path[]> staged = new ArrayList<>();
        long removed = 0;
        try {
            for (Path file : warehouse.partFiles(table)) {
                List<RowData> rows = ParquetFiles.readAll(file, type);
                List<RowData> kept = new ArrayList<>();
                for (RowData row : rows) {
                    if (toReplace.test(row)) {
                        removed++;
                    } else {
                        kept.add(row);
                    }
                }
                if (kept.size() < rows.size()) {
                    obsolete.add(file);
                    if (!kept.isEmpty()) {
                        staged.add(stage(dir, type, kept));
                    }
                }
            }
            if (!newRows.isEmpty()) {
                staged.add(stage(dir, type, newRows));
            }
            for (Path[] s : staged) {
                Files.move(s[0], s[1], StandardCopyOption.ATOMIC_MOVE);
            }
            for (Path old : obsolete) {
                Files.delete(old);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot rewrite table '" + table + "' in " + dir + ": " + e.getMessage(), e);
        }
        return new Replaced(removed, newRows.size());
    }

    /** Writes rows to a hidden file; returns {hidden, visible} names. */
    private static Path[] stage(Path dir, RowType type, List<RowData> rows) throws IOException {
        String name = "part-rewrite-" + UUID.randomUUID() + ParquetFiles.SUFFIX;
        Path hidden = dir.resolve("." + name + ".inprogress");
        ParquetFiles.write(hidden, type, rows);
        return new Path[] {hidden, dir.resolve(name)};
    }
}
