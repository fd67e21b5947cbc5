package org.flinkss.runtime.table;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import com.fasterxml.jackson.databind.JsonNode;

import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaSchema;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaStorage;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.LegacyTables;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The folder of tables: {@code <warehouse>/<name>/} holds table {@code name}, a Delta Lake table
 * (Parquet data files and a {@code _delta_log/}, see {@link DeltaTable}) that any Delta reader
 * reads as it is. The one place that maps a table's name to its folder. A table's properties record
 * its columns' Flink types, its writer ({@link TableOwner}) and how it is written ({@link
 * #APPENDED} or {@link #REPLACED}).
 *
 * <p>A folder of the earlier format (Parquet part files and a {@code _table.json}) is refused by
 * every method that reads or writes it, with the command that converts it ({@link #convert}).
 */
public final class Warehouse {

    /** A table that grows by one commit of new data files per micro-batch. */
    public static final String APPENDED = "append";

    /** A table replaced whole at each micro-batch (complete output mode). */
    public static final String REPLACED = "complete";

    /**
     * How long before the oldest file it may delete {@link #deleteUncommitted} reads the log: the
     * clocks of the machines that wrote the files and the log may differ by this much.
     */
    private static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

    /** The warehouse's folder: {@code file:/...} or {@code s3://bucket/prefix}. */
    private final org.apache.flink.core.fs.Path location;

    /** The local folder of a warehouse on the local disk; null on an object store. */
    @Nullable private final Path root;

    public Warehouse(Path root) {
        this.root = root.toAbsolutePath().normalize();
        this.location = Storage.location(this.root);
    }

    /**
     * A warehouse anywhere Flink's file systems reach: a local folder ({@code file:} URI) behaves
     * exactly as {@link #Warehouse(Path)}; on an object store ({@code s3://bucket/prefix}) its
     * tables are Delta tables under that prefix.
     */
    public Warehouse(org.apache.flink.core.fs.Path location) {
        if (Storage.isLocal(location)) {
            this.root = Storage.localFile(location, "a warehouse").toAbsolutePath().normalize();
            this.location = Storage.location(this.root);
        } else {
            this.root = null;
            String uri = location.toUri().toString();
            this.location =
                    new org.apache.flink.core.fs.Path(
                            uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri);
        }
    }

    /**
     * The warehouse's local folder; refused, naming the warehouse, when it is on an object store
     * (use {@link #location()}).
     */
    public Path root() {
        if (root == null) {
            throw new IllegalStateException(
                    "the warehouse "
                            + location
                            + " is on an object store, not a local folder: this needs a local"
                            + " --warehouse (docs/object-storage.md)");
        }
        return root;
    }

    /** The warehouse's folder as a URI ({@code file:/...} or {@code s3://bucket/prefix}). */
    public org.apache.flink.core.fs.Path location() {
        return location;
    }

    /** Whether the warehouse is on the local disk (not an object store). */
    public boolean isLocal() {
        return root != null;
    }

    /** For messages: the local folder, or the object store URI. */
    public String where() {
        return root != null ? root.toString() : location.toString();
    }

    /** For messages: a table's local folder, or its object store URI. */
    private String where(String name) {
        return root != null ? tablePath(name).toString() : folder(name);
    }

    /**
     * The local checkpoint folder a table's owner records: relative to a local warehouse, a {@code
     * file:} URI beside one on an object store; null when it records none.
     */
    @Nullable
    public Path checkpointOf(TableOwner owner) {
        String checkpoint = owner.checkpoint();
        if (checkpoint == null) {
            return null;
        }
        return checkpoint.startsWith("file:")
                ? Path.of(java.net.URI.create(checkpoint)).normalize()
                : root().resolve(checkpoint).normalize();
    }

    /**
     * The table's folder as a URI, for descriptions: as {@code tablePath(name).toUri()} locally.
     */
    public String uri(String name) {
        return root != null ? tablePath(name).toUri().toString() : tableLocation(name) + "/";
    }

    /** The table's folder as a Flink path (local or on an object store). */
    public org.apache.flink.core.fs.Path tableLocation(String name) {
        checkName(name);
        return root != null
                ? Storage.location(root.resolve(name))
                : new org.apache.flink.core.fs.Path(location, name);
    }

    private static void checkName(String name) {
        if (!name.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException(
                    "bad table name '" + name + "': use letters, digits and _");
        }
    }

    /** The table's local folder (a local warehouse only, see {@link #root()}). */
    public Path tablePath(String name) {
        checkName(name);
        return root().resolve(name);
    }

    /** The table's folder as a URI, for Flink's and Delta Kernel's file systems. */
    public String folder(String name) {
        String uri =
                root != null
                        ? tablePath(name).toUri().toString()
                        : tableLocation(name).toUri().toString();
        return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }

    /** The Delta table of a name; it need not exist. */
    public DeltaTable delta(String name) {
        return DeltaTable.forPath(folder(name), DeltaStorage.flink());
    }

    /** Whether the warehouse has a table of this name (a folder of the earlier format counts). */
    public boolean exists(String name) {
        if (root == null) {
            return delta(name).exists();
        }
        Path folder = tablePath(name);
        return Files.isDirectory(folder.resolve("_delta_log"))
                ? delta(name).exists()
                : LegacyTables.isLegacy(folder);
    }

    /** Whether the table is a folder of the earlier format, not converted yet. */
    public boolean isLegacy(String name) {
        if (root == null) {
            // The earlier format was only ever written to local folders.
            checkName(name);
            return false;
        }
        return LegacyTables.isLegacy(tablePath(name));
    }

    /** Every table's name, sorted (folders of the earlier format included). */
    public List<String> tables() {
        List<String> names = new ArrayList<>();
        if (root == null) {
            try {
                for (FileStatus child : Storage.list(location)) {
                    org.apache.flink.core.fs.Path log =
                            new org.apache.flink.core.fs.Path(child.getPath(), "_delta_log");
                    if (child.isDir() && Storage.exists(log)) {
                        names.add(child.getPath().getName());
                    }
                }
            } catch (IOException e) {
                return names;
            }
            names.sort(String::compareTo);
            return names;
        }
        try (Stream<Path> dirs = Files.list(root)) {
            dirs.filter(d -> Files.isDirectory(d.resolve("_delta_log")) || LegacyTables.isLegacy(d))
                    .forEach(d -> names.add(d.getFileName().toString()));
        } catch (IOException e) {
            return names;
        }
        names.sort(String::compareTo);
        return names;
    }

    // ---------------------------------------------------------------- writers

    /**
     * Makes table {@code name} ready for its writer: creates it with these columns, owner and mode
     * ({@link #APPENDED} or {@link #REPLACED}), or checks that the existing table is {@code
     * owner}'s, with these columns and mode. Refused, naming both, when another query or checkpoint
     * writes it (issue 14, point 4). A table emptied by {@code reset} takes its writer's new
     * columns or mode (one {@code REPLACE TABLE} commit); one converted from the earlier format is
     * claimed by its query's first run.
     */
    public void own(String name, RowType rowType, TableOwner owner, String mode) {
        refuseLegacy(name);
        DeltaTable table = delta(name);
        // One reading of the log for the checks below (a run owns each of its tables at start).
        Optional<DeltaTable.Head> head = table.head();
        if (head.isEmpty()) {
            table.create(rowType, owner.properties(mode));
            return;
        }
        Map<String, String> properties = head.get().properties();
        TableOwner current = TableOwner.of(properties);
        if (current.sameAs(owner) && current.namesAnotherPlaceThan(owner)) {
            if (writtenByACopy(name, owner)) {
                throw new IllegalStateException(
                        "table '"
                                + name
                                + "' ("
                                + where(name)
                                + ") is written by "
                                + current.describe(root)
                                + ", and "
                                + owner.describe(root)
                                + " is a copy of that checkpoint (a copied base): both would write"
                                + " it. Two bases sharing one --warehouse? Give each its own"
                                + " --warehouse (a copied base's own warehouse folder is its"
                                + " copy of the tables).");
            }
            // The base was moved (or its copy taken alone): this checkpoint writes the table now.
            Map<String, String> moved = new HashMap<>(owner.properties(APPENDED));
            moved.keySet().removeIf(k -> k.equals(TableOwner.MODE));
            table.setProperties(moved);
            properties = table.properties();
        }
        if (!current.sameAs(owner)) {
            if (current.queryId() == null && current.query().equals(owner.query())) {
                Map<String, String> claimed = new HashMap<>(owner.properties(mode));
                claimed.keySet().removeIf(k -> k.equals(TableOwner.MODE));
                table.setProperties(claimed);
                properties = table.properties();
            } else {
                throw new IllegalStateException(
                        "table '"
                                + name
                                + "' ("
                                + where(name)
                                + ") is written by "
                                + current.describe(root)
                                + ", so "
                                + owner.describe(root)
                                + " cannot write it: a table belongs to one writing query and its"
                                + " checkpoint. Two bases sharing one --warehouse? Give each its"
                                + " own --warehouse. To hand the table over, delete its folder and"
                                + " run the new writer.");
            }
        }
        RowType existing = head.get().rowType(); // no commit above changes the columns
        String existingMode = properties.getOrDefault(TableOwner.MODE, APPENDED);
        if (existing.equals(rowType) && existingMode.equals(mode)) {
            return;
        }
        if (table.snapshot().files().isEmpty()) {
            table.replace(rowType, owner.properties(mode));
            return;
        }
        if (existingMode.equals(mode)
                && !existing.equals(rowType)
                && DeltaSchema.withMicros(existing).equals(DeltaSchema.withMicros(rowType))) {
            // Same Delta schema, other recorded precision: Delta Kernel changes no schema of a
            // table without column mapping, and appending microseconds under a column recorded as
            // milliseconds would have this project's readers and Spark's see different rows.
            throw new IllegalStateException(
                    "table '"
                            + name
                            + "' at "
                            + where(name)
                            + " was created by an earlier version with timestamps in milliseconds ("
                            + existing
                            + "); query '"
                            + owner.query()
                            + "' now keeps Spark's microseconds ("
                            + rowType
                            + "), and a Delta table's column types cannot change in place. Its rows"
                            + " stay readable (table show, export, --version). To go on, reset the"
                            + " query (reset "
                            + owner.query()
                            + ": the table is emptied in one commit, older versions stay readable"
                            + " until a vacuum, the next run reprocesses its input), or write to"
                            + " another warehouse.");
        }
        throw new IllegalStateException(
                "table '"
                        + name
                        + "' at "
                        + where(name)
                        + (existing.equals(rowType)
                                ? " was written in "
                                        + existingMode
                                        + " mode, and query '"
                                        + owner.query()
                                        + "' now writes it in "
                                        + mode
                                        + " mode"
                                : " has columns "
                                        + existing
                                        + " but query '"
                                        + owner.query()
                                        + "' writes "
                                        + rowType)
                        + ". Reset the query (reset "
                        + owner.query()
                        + ") or write to another warehouse.");
    }

    /**
     * Whether table {@code name} records as its writer the checkpoint of which {@code now} is a
     * copy: the same query id, at another place that still holds it (a copied base sharing this
     * warehouse). Neither may write or empty the table for the other.
     */
    public boolean writtenByACopy(String name, TableOwner now) {
        TableOwner recorded = owner(name);
        return recorded.sameAs(now)
                && recorded.namesAnotherPlaceThan(now)
                && !inBaseOf(name, now)
                && recorded.stillHeldBeside(now, root);
    }

    /**
     * Whether the table lies in the base folder of the checkpoint that runs now ({@code
     * <base>/_cp/<query>}): then it is that base's own copy of the table (a copied base, or one
     * uploaded to S3), which no other base writes. Only a warehouse outside the base can be shared.
     */
    private boolean inBaseOf(String name, TableOwner now) {
        try {
            org.apache.flink.core.fs.Path checkpoint = now.checkpointLayout(root).location();
            org.apache.flink.core.fs.Path cps = checkpoint.getParent();
            if (cps == null || cps.getParent() == null) {
                return false;
            }
            String base = comparable(cps.getParent().toUri());
            return comparable(java.net.URI.create(folder(name))).startsWith(base);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** {@code scheme://authority/path/}, with {@code file} for a path without a scheme. */
    private static String comparable(java.net.URI uri) {
        String path = uri.normalize().getPath();
        return (uri.getScheme() == null ? "file" : uri.getScheme())
                + "://"
                + (uri.getAuthority() == null ? "" : uri.getAuthority())
                + (path.endsWith("/") ? path : path + "/");
    }

    /**
     * Empties table {@code name} in one commit ({@code REPLACE TABLE}: every data file removed, the
     * columns kept) and records {@code newOwner} as its writer: {@code reset}'s new checkpoint.
     * Older versions stay readable until a vacuum.
     */
    public void empty(String name, TableOwner newOwner) {
        refuseLegacy(name);
        DeltaTable table = delta(name);
        String mode = table.properties().getOrDefault(TableOwner.MODE, APPENDED);
        table.replace(table.rowType(), newOwner.properties(mode));
    }

    /**
     * Deletes the data files of query {@code queryId} (their names start with its id) that the
     * table never committed: files of attempts that failed, or of batches found already committed.
     * Files that some version removed (superseded results, a reset) stay for readers of older
     * versions until a vacuum. Call it only when no run of the query is active.
     *
     * @return how many files were deleted
     */
    public int deleteUncommitted(String name, String queryId) {
        return deleteUncommitted(name, queryId, null).deleted();
    }

    /** What {@link #deleteUncommitted(String, String, org.apache.flink.core.fs.Path)} did. */
    public record Cleanup(int deleted, boolean replayed) {

        static final Cleanup NOTHING = new Cleanup(0, false);
    }

    /**
     * {@link #deleteUncommitted(String, String)} that remembers where it ended, in {@code record}
     * (a small file of the query's checkpoint; null: none): the table's version then, and a digest
     * of the names of the query's files left in the folder, all of them committed by that version.
     * The next call lists the folder and reads only the log entries of the versions since: when the
     * query's files are exactly the recorded ones plus files those versions added, none can be
     * uncommitted, and the table's snapshot is not replayed (an incremental run's clean-up is then
     * one listing and a log entry or two, not the whole table's log). Anything else (a file no
     * version since added: a killed run's or a failed attempt's; a file gone; no record, one of
     * another query id or table folder, a log entry cleaned up) replays the snapshot as {@link
     * #deleteUncommitted(String, String)} does, and records the result. A file is deleted only by
     * that replay, so the record can save work but never make a committed file look uncommitted.
     *
     * @return how many files were deleted, and whether the snapshot was replayed
     */
    public Cleanup deleteUncommitted(
            String name, String queryId, @Nullable org.apache.flink.core.fs.Path record) {
        if (root != null && (!Files.isDirectory(tablePath(name)) || isLegacy(name))) {
            return Cleanup.NOTHING;
        }
        org.apache.flink.core.fs.Path folder = tableLocation(name);
        String prefix = queryId + "-";
        try {
            List<FileStatus> files = new ArrayList<>();
            for (FileStatus f : Storage.list(folder)) {
                if (!f.isDir() && f.getPath().getName().startsWith(prefix)) {
                    files.add(f);
                }
            }
            if (files.isEmpty()) {
                return Cleanup.NOTHING;
            }
            if (record != null && unchangedSince(name, queryId, record, files)) {
                return Cleanup.NOTHING;
            }
            return replayAndDelete(name, queryId, record, files);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot clean table '" + name + "' (" + folder + "): " + e.getMessage(), e);
        }
    }

    /**
     * Whether the query's files are the ones {@code record} names plus files added by the versions
     * since; if so, records the table's version now and these files.
     */
    private boolean unchangedSince(
            String name,
            String queryId,
            org.apache.flink.core.fs.Path record,
            List<FileStatus> files)
            throws IOException {
        JsonNode last;
        try {
            if (!Storage.exists(record)) {
                return false;
            }
            last = JsonFiles.readTree(record);
        } catch (IOException e) {
            return false; // unreadable: replay, and write it again
        }
        if (!queryId.equals(last.path("queryId").asText())
                || !folder(name).equals(last.path("table").asText())
                || !last.path("version").canConvertToLong()) {
            return false;
        }
        long version = last.path("version").asLong();
        DeltaTable table = delta(name);
        long now;
        Set<String> added;
        try {
            now = table.latestVersionFrom(version);
            if (now < version) {
                return false; // the table was made anew
            }
            added = table.namesAdded(version + 1, now);
        } catch (RuntimeException e) {
            return false; // a log entry cleaned up, or the table gone: replay
        }
        List<String> older = new ArrayList<>();
        for (FileStatus f : files) {
            String n = f.getPath().getName();
            if (!added.contains(n)) {
                older.add(n);
            }
        }
        if (older.size() != last.path("files").asLong(-1)
                || !digest(older).equals(last.path("digest").asText())) {
            return false;
        }
        if (now != version || !added.isEmpty()) {
            writeRecord(name, queryId, record, now, files);
        }
        return true;
    }

    /** The cleaning by the table's snapshot; records where it ended if nothing failed. */
    private Cleanup replayAndDelete(
            String name,
            String queryId,
            @Nullable org.apache.flink.core.fs.Path record,
            List<FileStatus> files)
            throws IOException {
        DeltaTable table = delta(name);
        DeltaSnapshot snapshot = table.snapshot();
        Set<String> keep = new HashSet<>();
        for (DataFile f : snapshot.files()) {
            keep.add(f.name());
        }
        List<FileStatus> candidates = new ArrayList<>(files);
        candidates.removeIf(f -> keep.contains(f.getPath().getName()));
        int deleted = 0;
        boolean failed = false;
        List<FileStatus> left = new ArrayList<>(files);
        if (!candidates.isEmpty()) {
            long oldest = Long.MAX_VALUE;
            for (FileStatus f : candidates) {
                oldest = Math.min(oldest, f.getModificationTime());
            }
            keep.addAll(table.removedSince(Instant.ofEpochMilli(oldest).minus(CLOCK_SKEW)));
            for (FileStatus f : candidates) {
                if (keep.contains(f.getPath().getName())) {
                    continue;
                }
                if (f.getPath().getFileSystem().delete(f.getPath(), false)) {
                    deleted++;
                    left.remove(f);
                } else {
                    failed = true;
                }
            }
        }
        if (record != null
                && !failed
                && table.latestVersionFrom(snapshot.version()) == snapshot.version()) {
            // Every file left is committed at or before the snapshot's version.
            writeRecord(name, queryId, record, snapshot.version(), left);
        }
        return new Cleanup(deleted, true);
    }

    private void writeRecord(
            String name,
            String queryId,
            org.apache.flink.core.fs.Path record,
            long version,
            List<FileStatus> files) {
        List<String> names = new ArrayList<>();
        for (FileStatus f : files) {
            names.add(f.getPath().getName());
        }
        Map<String, Object> content = new LinkedHashMap<>();
        content.put("queryId", queryId);
        content.put("table", folder(name));
        content.put("version", version);
        content.put("files", names.size());
        content.put("digest", digest(names));
        JsonFiles.write(record, content);
    }

    /** SHA-256 of the sorted names, one a line: equal for the same set of names. */
    private static String digest(List<String> names) {
        List<String> sorted = new ArrayList<>(names);
        sorted.sort(String::compareTo);
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String n : sorted) {
                sha.update(n.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) '\n');
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
    }

    /**
     * Converts a table of the earlier format in place ({@code table convert}), recording {@code
     * owner} as its writer when its query's checkpoint is known.
     *
     * @return the Delta table
     */
    public DeltaTable convert(String name, @Nullable TableOwner owner) {
        if (!isLegacy(name)) {
            DeltaTable table = delta(name);
            if (table.exists()) {
                return table;
            }
            throw new IllegalArgumentException(
                    "no table '" + name + "' of the earlier format in warehouse " + where());
        }
        Map<String, String> properties = new HashMap<>();
        if (owner != null) {
            properties.putAll(owner.properties(APPENDED));
            properties.remove(TableOwner.MODE);
        }
        return LegacyTables.convert(tablePath(name), DeltaStorage.flink(), properties);
    }

    // ---------------------------------------------------------------- readers

    private void refuseLegacy(String name) {
        if (isLegacy(name)) {
            throw new IllegalStateException(LegacyTables.refusal(tablePath(name).toString()));
        }
    }

    /** The table, refused with a clear message if it is missing or of the earlier format. */
    public DeltaTable existing(String name) {
        refuseLegacy(name);
        DeltaTable table = delta(name);
        if (!table.exists()) {
            throw new IllegalArgumentException(
                    "no table '"
                            + name
                            + "' in warehouse "
                            + where()
                            + (hasFolder() ? " (tables: " + String.join(", ", tables()) + ")" : "")
                            + ": run the query that writes it first");
        }
        return table;
    }

    private boolean hasFolder() {
        if (root != null) {
            return Files.isDirectory(root);
        }
        try {
            return Storage.exists(location);
        } catch (IOException e) {
            return false;
        }
    }

    /** {@link #APPENDED} or {@link #REPLACED}. */
    public String writtenBy(String name) {
        return existing(name).properties().getOrDefault(TableOwner.MODE, APPENDED);
    }

    /** The query (or command) that writes a table. */
    public String writer(String name) {
        return owner(name).query();
    }

    /** Who writes a table. */
    public TableOwner owner(String name) {
        return TableOwner.of(existing(name).properties());
    }

    public RowType rowType(String name) {
        return existing(name).rowType();
    }

    /** The table as of its current version. */
    public DeltaSnapshot snapshot(String name) {
        return existing(name).snapshot();
    }

    /**
     * The table as of {@code version} if given, else as of the newest version committed at or
     * before {@code time} if given, else now (Delta's time travel).
     */
    public DeltaSnapshot snapshot(String name, @Nullable Long version, @Nullable Instant time) {
        DeltaTable table = existing(name);
        if (version != null) {
            return table.snapshotAt(version);
        }
        return time != null ? table.snapshotAsOf(time) : table.snapshot();
    }

    /** The rows of the current version, from the files' statistics (no data is read). */
    public long count(String name) {
        return snapshot(name).count();
    }

    public List<RowData> rows(String name) {
        return snapshot(name).rows();
    }

    /** Rows as Java values (Long, Integer, String, Instant, Double ...), sorted by every column. */
    public List<List<Object>> sortedValues(String name) {
        return sortedValues(snapshot(name));
    }

    /** A snapshot's rows as Java values, sorted by every column. */
    public static List<List<Object>> sortedValues(DeltaSnapshot snapshot) {
        RowType type = snapshot.rowType();
        List<List<Object>> values = new ArrayList<>();
        for (RowData row : snapshot.rows()) {
            values.add(RowValues.toList(row, type));
        }
        values.sort(RowValues.ORDER);
        return values;
    }
}
