package org.flinkss.runtime.table;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.flinkss.runtime.sink.BatchFunction;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Complete output mode into a table of the warehouse: at each commit the table is replaced, whole,
 * by the query's entire result, as Spark's complete mode overwrites a Delta table at every batch.
 *
 * <p>Each commit writes the whole result to a new part file, then switches the table's pointer, the
 * file {@value #CURRENT} that names its current part file, by an atomic rename: a reader ({@code
 * Warehouse.partFiles}) reads the old result or the new one, never a part of either, and a file
 * that a reader has found stays in place during the next commit (the one before is kept; older ones
 * are deleted). A commit reads the current result, applies the batch's changes (the last value of
 * every key that changed, deletes included) and writes the new one. Changes carry whole values, not
 * increments, so a batch handed again after a failure (at-least-once, {@link BatchFunction}) leaves
 * the same table: the commit is idempotent without a record of batches.
 *
 * <p>Other tools reading the folder must follow the pointer, as Delta readers follow its log.
 */
public final class CompleteTable implements BatchFunction<RowData> {

    private static final long serialVersionUID = 1L;

    /** The pointer to the current part file. */
    public static final String CURRENT = "_current";

    /** How the part files of a complete table start. */
    public static final String PREFIX = "part-complete-";

    private final String table;
    private final String directory;
    private final RowType rowType;
    private final int[] keyFields;

    public CompleteTable(
            Warehouse warehouse, String table, RowType rowType, List<String> keyColumns) {
        this.table = table;
        this.directory = warehouse.tablePath(table).toString();
        this.rowType = rowType;
        this.keyFields = keyColumns.stream().mapToInt(rowType::getFieldIndex).toArray();
    }

    @Override
    public void apply(List<RowData> changes, long batchId) throws IOException {
        Path dir = Paths.get(directory);
        Path pointer = dir.resolve(CURRENT);
        String previous = Files.exists(pointer) ? Files.readString(pointer).trim() : null;
        Map<List<Object>, RowData> result = new LinkedHashMap<>();
        if (previous != null) {
            for (RowData row : ParquetFiles.readAll(dir.resolve(previous), rowType)) {
                result.put(key(row), row);
            }
        }
        for (RowData change : changes) {
            if (change.getRowKind() == RowKind.DELETE) {
                result.remove(key(change));
            } else {
                result.put(key(change), change);
            }
        }
        List<RowData> rows = new ArrayList<>(result.values());
        for (RowData row : rows) {
            row.setRowKind(RowKind.INSERT);
        }
        Files.createDirectories(dir);
        String name = PREFIX + batchId + "-" + UUID.randomUUID() + ParquetFiles.SUFFIX;
        Path newPointer = dir.resolve("." + CURRENT + "-" + UUID.randomUUID());
        try {
            ParquetFiles.write(dir.resolve(name), rowType, rows);
            Files.writeString(newPointer, name);
            Files.move(
                    newPointer,
                    pointer,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            Files.deleteIfExists(newPointer);
            throw new IOException(
                    "complete mode: cannot replace table '"
                            + table
                            + "' ("
                            + dir
                            + ") with batch "
                            + batchId
                            + "'s result: "
                            + e.getMessage(),
                    e);
        }
        // Keep the new file and the one before it (a reader may be on it); older ones and the
        // files of commits that failed before their switch go.
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String n = f.getFileName().toString();
                if (n.startsWith(PREFIX) && !n.equals(name) && !n.equals(previous)) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    private List<Object> key(RowData row) {
        List<Object> key = new ArrayList<>(keyFields.length);
        for (int f : keyFields) {
            key.add(RowValues.get(row, f, rowType.getTypeAt(f)));
        }
        return key;
    }
}
