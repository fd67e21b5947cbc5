package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tables of the project's earlier format (a folder of Parquet part files and a {@code _table.json}
 * naming the columns, the writing query and, for complete mode, the mode) made Delta tables in
 * place, as Delta's {@code CONVERT TO DELTA} does: one commit, version 0, that creates the table
 * with the folder's columns and adds its committed part files as they are (no data is rewritten).
 * For a complete-mode table that is the one file its {@code _current} pointer names; the superseded
 * file beside it stays unreferenced until a vacuum. {@code _table.json} and {@code _current} are
 * left in place (Delta readers skip {@code _} files). This class is the only code that still reads
 * the earlier format. That format was only ever written to local folders: they are local {@link
 * File}s here.
 */
public final class LegacyTables {

    /** Table property: the query that writes the table (from {@code _table.json}). */
    public static final String WRITER = "flinkss.writer";

    /** Table property: {@code append} or {@code complete} (from {@code _table.json}). */
    public static final String MODE = "flinkss.mode";

    /** The earlier format's table metadata file (columns, writer, mode). */
    static final String METADATA = "_table.json";

    /** The earlier format's pointer to a complete-mode table's current part file. */
    static final String CURRENT = "_current";

    private static final ObjectMapper JSON = new ObjectMapper();

    private LegacyTables() {}

    /** Whether {@code folder} holds a table of the earlier format that is not converted yet. */
    public static boolean isLegacy(File folder) {
        return new File(folder, METADATA).exists() && !new File(folder, "_delta_log").isDirectory();
    }

    /**
     * Whether the table folder {@code tableFolder} (a URI, on any of Flink's file systems) holds
     * the earlier format's metadata file.
     */
    static boolean hasMetadata(String tableFolder) {
        Path metadata = new Path(tableFolder, METADATA);
        try {
            return metadata.getFileSystem().exists(metadata);
        } catch (IOException e) {
            return false;
        }
    }

    /** Refuses, with {@link #refusal}, a table folder that holds the earlier format's metadata. */
    static void refuseIfLegacy(String tableFolder) {
        if (hasMetadata(tableFolder)) {
            throw new IllegalStateException(refusal(tableFolder));
        }
    }

    /** What a user reads when an unconverted table is opened as a Delta table. */
    public static String refusal(String tableFolder) {
        String name = tableFolder.replaceAll("/+$", "");
        name = name.substring(name.lastIndexOf('/') + 1);
        return "the table at "
                + tableFolder
                + " was written by an earlier version of flinkss (Parquet part files and a "
                + METADATA
                + ", no _delta_log), and tables are Delta tables now. Convert it in place with"
                + " `table convert "
                + name
                + "` (one Delta commit adding its part files; no data is rewritten), or delete the"
                + " folder and rerun the query that writes it.";
    }

    /**
     * Converts the table in {@code folder} in place, recording the writer and mode of its {@code
     * _table.json} and {@code properties} (e.g. the writer's checkpoint) as table properties.
     * Converting a table that is already a Delta table does nothing.
     *
     * @return the Delta table
     */
    public static DeltaTable convert(
            File folder, DeltaStorage storage, Map<String, String> properties) {
        DeltaTable table = DeltaTable.forPath(folder.toPath().toUri().toString(), storage);
        if (table.exists()) {
            return table;
        }
        JsonNode meta = metadata(folder);
        RowType rowType = rowType(meta);
        List<DataFile> files = new ArrayList<>();
        for (File part : partFiles(folder)) {
            try {
                files.add(DataFiles.describe(new Path(part.toPath().toUri())));
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot convert the table in "
                                + folder
                                + ": cannot read part file "
                                + part
                                + ": "
                                + e.getMessage(),
                        e);
            }
        }
        Map<String, String> all = new HashMap<>(properties);
        all.put(WRITER, meta.path("writer").asText());
        all.put(MODE, meta.path("mode").asText("append"));
        table.createWith(rowType, all, files);
        return table;
    }

    /** The writing query that the earlier format's {@code _table.json} names. */
    public static String writer(File folder) {
        return metadata(folder).path("writer").asText();
    }

    private static JsonNode metadata(File folder) {
        File file = new File(folder, METADATA);
        try {
            return JSON.readTree(file);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read " + file + " (no table of the earlier format?): " + e.getMessage(),
                    e);
        }
    }

    private static RowType rowType(JsonNode meta) {
        List<String> names = new ArrayList<>();
        List<LogicalType> types = new ArrayList<>();
        for (JsonNode col : meta.path("columns")) {
            names.add(col.path("name").asText());
            types.add(
                    LogicalTypeParser.parse(
                            col.path("type").asText(), LegacyTables.class.getClassLoader()));
        }
        return RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0]));
    }

    /**
     * The committed part files: the one {@code _current} names (complete mode), else every visible
     * {@code .parquet} file of the folder (in-progress files were hidden, {@code .part-...}).
     */
    private static List<File> partFiles(File folder) {
        try {
            File current = new File(folder, CURRENT);
            if (current.exists()) {
                return List.of(new File(folder, Files.readString(current.toPath()).trim()));
            }
            if ("complete".equals(metadata(folder).path("mode").asText())) {
                return List.of(); // before its first commit
            }
            try (var files = Files.list(folder.toPath())) {
                return files.filter(
                                f -> {
                                    String n = f.getFileName().toString();
                                    return Files.isRegularFile(f)
                                            && !n.startsWith(".")
                                            && !n.startsWith("_")
                                            && n.endsWith(DataFiles.SUFFIX);
                                })
                        .sorted()
                        .map(f -> f.toFile())
                        .toList();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot list the part files of " + folder + ": " + e.getMessage(), e);
        }
    }
}
