package org.flinkss.runtime.table;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;

import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The clean-up of a query's data files that its table never committed (a failed attempt's, a killed
 * run's, a batch found already committed), before a run: the files in the table's folder whose
 * names start with the query's id, less those the current version references and those a version
 * removed lately (readers of older versions need them). A small record in the query's checkpoint
 * lets the next clean-up read only the log entries since, not the whole table.
 */
final class UncommittedFiles {

    /**
     * How long before the oldest file it may delete the clean-up reads the log: the clocks of the
     * machines that wrote the files and the log may differ by this much.
     */
    private static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

    private final TableFolders folders;

    UncommittedFiles(TableFolders folders) {
        this.folders = folders;
    }

    /** See {@link Warehouse#deleteUncommitted(String, String, Path)}. */
    Warehouse.Cleanup deleteUncommitted(String name, String queryId, @Nullable Path record) {
        if (folders.isLocal()
                && (!Storage.localFile(folders.tableLocation(name), "a table").isDirectory()
                        || folders.isLegacy(name))) {
            return Warehouse.Cleanup.NOTHING;
        }
        Path folder = folders.tableLocation(name);
        String prefix = queryId + "-";
        try {
            List<FileStatus> files = new ArrayList<>();
            for (FileStatus f : Storage.list(folder)) {
                if (!f.isDir() && f.getPath().getName().startsWith(prefix)) {
                    files.add(f);
                }
            }
            if (files.isEmpty()) {
                return Warehouse.Cleanup.NOTHING;
            }
            if (record != null && unchangedSince(name, queryId, record, files)) {
                return Warehouse.Cleanup.NOTHING;
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
    private boolean unchangedSince(String name, String queryId, Path record, List<FileStatus> files)
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
                || !folders.folder(name).equals(last.path("table").asText())
                || !last.path("version").canConvertToLong()) {
            return false;
        }
        long version = last.path("version").asLong();
        DeltaTable table = folders.delta(name);
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
    private Warehouse.Cleanup replayAndDelete(
            String name, String queryId, @Nullable Path record, List<FileStatus> files)
            throws IOException {
        DeltaTable table = folders.delta(name);
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
        return new Warehouse.Cleanup(deleted, true);
    }

    private void writeRecord(
            String name, String queryId, Path record, long version, List<FileStatus> files) {
        List<String> names = new ArrayList<>();
        for (FileStatus f : files) {
            names.add(f.getPath().getName());
        }
        Map<String, Object> content = new LinkedHashMap<>();
        content.put("queryId", queryId);
        content.put("table", folders.folder(name));
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
}
