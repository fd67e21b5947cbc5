package org.flinkss.runtime.table;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.source.files.FilePlanner;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The folder of tables: {@code <warehouse>/<name>/} holds a table's committed Parquet part files
 * and {@code _table.json} (its columns and the query that writes it). Files whose names start with
 * {@code .} or {@code _} are not data: in-progress part files are hidden until their checkpoint
 * commits them, so a reader only ever sees whole, committed files.
 */
public final class Warehouse {

    private static final String METADATA = "_table.json";

    private final Path root;

    public Warehouse(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    public Path root() {
        return root;
    }

    public Path tablePath(String name) {
        if (!name.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException(
                    "bad table name '" + name + "': use letters, digits and _");
        }
        return root.resolve(name);
    }

    public boolean exists(String name) {
        return Files.exists(tablePath(name).resolve(METADATA));
    }

    /** Records a table's columns and writer, refusing a second writer query or other columns. */
    public void declare(String name, RowType rowType, String writerQuery) {
        declare(name, rowType, writerQuery, APPENDED);
    }

    /** A table that grows by committed part files. */
    public static final String APPENDED = "append";

    /** A table replaced whole at each commit (complete output mode). */
    public static final String REPLACED = "complete";

    /**
     * Records a table's columns, writer and how it is written ({@link #APPENDED} or {@link
     * #REPLACED}), refusing a second writer query, other columns or another way.
     */
    public void declare(String name, RowType rowType, String writerQuery, String writtenBy) {
        Path meta = tablePath(name).resolve(METADATA);
        if (Files.exists(meta)) {
            String existingWay = writtenBy(name);
            if (!existingWay.equals(writtenBy)) {
                throw new IllegalStateException(
                        "table '"
                                + name
                                + "' at "
                                + tablePath(name)
                                + " was written in "
                                + existingWay
                                + " mode, and query '"
                                + writerQuery
                                + "' now writes it in "
                                + writtenBy
                                + " mode. Reset the query (reset "
                                + writerQuery
                                + ") or write to another warehouse.");
            }
            RowType existing = rowType(name);
            String writer = metadata(name).path("writer").asText();
            if (!existing.equals(rowType)) {
                throw new IllegalStateException(
                        "table '"
                                + name
                                + "' at "
                                + tablePath(name)
                                + " has columns "
                                + existing
                                + " but query '"
                                + writerQuery
                                + "' writes "
                                + rowType
                                + ". Reset the query (reset "
                                + writerQuery
                                + ") or write to another warehouse.");
            }
            if (!writer.equals(writerQuery)) {
                throw new IllegalStateException(
                        "table '"
                                + name
                                + "' is written by query '"
                                + writer
                                + "', not '"
                                + writerQuery
                                + "': a table has one writer. Drop the table or use another"
                                + " warehouse.");
            }
            return;
        }
        ObjectNode node = JsonFiles.JSON.createObjectNode();
        node.put("name", name);
        node.put("writer", writerQuery);
        if (!writtenBy.equals(APPENDED)) {
            node.put("mode", writtenBy);
        }
        ArrayNode cols = node.putArray("columns");
        for (RowType.RowField f : rowType.getFields()) {
            cols.addObject()
                    .put("name", f.getName())
                    .put("type", f.getType().asSerializableString());
        }
        JsonFiles.write(meta, node);
    }

    private JsonNode metadata(String name) {
        Path meta = tablePath(name).resolve(METADATA);
        try {
            return JsonFiles.JSON.readTree(meta.toFile());
        } catch (NoSuchFileException | FileNotFoundException e) {
            throw new IllegalArgumentException(
                    "no table '"
                            + name
                            + "' in warehouse "
                            + root
                            + ": run the query that writes it first");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + meta + ": " + e.getMessage(), e);
        }
    }

    /** {@link #APPENDED} or {@link #REPLACED}. */
    public String writtenBy(String name) {
        rowType(name);
        return metadata(name).path("mode").asText(APPENDED);
    }

    /** The query that writes a table. */
    public String writer(String name) {
        rowType(name);
        return metadata(name).path("writer").asText();
    }

    public RowType rowType(String name) {
        if (!Files.exists(tablePath(name).resolve(METADATA))) {
            throw new IllegalArgumentException(
                    "no table '"
                            + name
                            + "' in warehouse "
                            + root
                            + (Files.isDirectory(root)
                                    ? " (tables: " + String.join(", ", tables()) + ")"
                                    : "")
                            + ": run the query that writes it first");
        }
        JsonNode node = metadata(name);
        List<String> names = new ArrayList<>();
        List<LogicalType> types = new ArrayList<>();
        for (JsonNode col : node.path("columns")) {
            names.add(col.path("name").asText());
            types.add(
                    LogicalTypeParser.parse(
                            col.path("type").asText(), Warehouse.class.getClassLoader()));
        }
        return RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0]));
    }

    public List<String> tables() {
        List<String> names = new ArrayList<>();
        try (var dirs = Files.list(root)) {
            dirs.filter(d -> Files.exists(d.resolve(METADATA)))
                    .forEach(d -> names.add(d.getFileName().toString()));
        } catch (IOException e) {
            return names;
        }
        names.sort(String::compareTo);
        return names;
    }

    /**
     * The committed part files of a table, oldest first; for a table replaced at each commit, the
     * one file its {@value CompleteTable#CURRENT} pointer names.
     */
    public List<Path> partFiles(String name) {
        Path current = tablePath(name).resolve(CompleteTable.CURRENT);
        if (Files.exists(current)) {
            try {
                return List.of(tablePath(name).resolve(Files.readString(current).trim()));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + current + ": " + e.getMessage(), e);
            }
        }
        if (exists(name) && writtenBy(name).equals(REPLACED)) {
            return List.of(); // before its first commit
        }
        try {
            return FilePlanner.list(tablePath(name), ParquetFiles.SUFFIX);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot list table '" + name + "': " + e.getMessage(), e);
        }
    }

    public long count(String name) {
        rowType(name);
        long n = 0;
        for (Path file : partFiles(name)) {
            try {
                n += ParquetFiles.rowCount(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        return n;
    }

    public List<RowData> rows(String name) {
        RowType type = rowType(name);
        List<RowData> rows = new ArrayList<>();
        for (Path file : partFiles(name)) {
            try {
                rows.addAll(ParquetFiles.readAll(file, type));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        return rows;
    }

    /** Rows as Java values (Long, Integer, String, Instant, Double ...), sorted by every column. */
    public List<List<Object>> sortedValues(String name) {
        RowType type = rowType(name);
        List<List<Object>> values = new ArrayList<>();
        for (RowData row : rows(name)) {
            values.add(RowValues.toList(row, type));
        }
        values.sort(RowValues.ORDER);
        return values;
    }

    /**
     * Deletes in-progress part files that no checkpoint will ever commit: those a killed run left
     * behind. Call it only when no run of the writer is active and its last run ended committed.
     */
    public int deleteOrphans(String name) {
        int deleted = 0;
        Path dir = tablePath(name);
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String n = f.getFileName().toString();
                if (n.startsWith(".") && n.contains(".inprogress.")) {
                    Files.deleteIfExists(f);
                    deleted++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot clean table '" + name + "': " + e.getMessage(), e);
        }
        return deleted;
    }
}
