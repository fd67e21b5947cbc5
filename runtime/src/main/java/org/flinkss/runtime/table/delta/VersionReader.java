package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;

import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.KernelException;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads ranges of a table's versions from their log entries ({@link LogEntry}), one file each and
 * no listing: a stream's next batch, the files a range added, the history, what versions since a
 * time removed, and the current version found from a known one.
 */
final class VersionReader {

    /**
     * How far {@link #latestVersionFrom} looks for log entries one by one before it asks Kernel.
     */
    private static final int PROBES = 64;

    /**
     * How many versions {@link #completenessAt} reads back past commits of no batch (a recompute's
     * rewrite, a change of properties) for the newest batch's commit.
     */
    private static final int COMPLETENESS_LOOKBACK = 100;

    private final String path;
    private final Engine engine;
    private final SnapshotReader snapshots;

    VersionReader(String path, Engine engine, SnapshotReader snapshots) {
        this.path = path;
        this.engine = engine;
        this.snapshots = snapshots;
    }

    LogEntry entry(long version) {
        return LogEntry.read(engine, path, version);
    }

    /** See {@link DeltaTable#latestVersionFrom}. */
    long latestVersionFrom(long known) {
        if (known < 0) {
            return snapshots.version();
        }
        for (long v = known; v < known + PROBES; v++) {
            if (!exists(LogEntry.file(path, v + 1))) {
                if (v == known && !exists(LogEntry.file(path, known))) {
                    return snapshots.version(); // not committed after all: ask the log
                }
                return v;
            }
        }
        return snapshots.version();
    }

    /** See {@link DeltaTable#filesAdded}. */
    List<AddedFile> filesAdded(long from, long to) {
        List<AddedFile> files = new ArrayList<>();
        for (long v = from; v <= to; v++) {
            files.addAll(appendedBy(v));
        }
        return files;
    }

    /** See {@link DeltaTable#namesAdded}. */
    Set<String> namesAdded(long from, long to) {
        Set<String> names = new HashSet<>();
        for (long v = from; v <= to; v++) {
            for (AddedFile f : entry(v).added) {
                names.add(f.file().name());
            }
        }
        return names;
    }

    /** See {@link DeltaTable#nextBatch(DeltaOffset, long, long, long)}. */
    SourceBatch nextBatch(DeltaOffset start, long lastVersion, long maxFiles, long maxBytes) {
        List<AddedFile> files = new ArrayList<>();
        long bytes = 0;
        for (long v = start.version(); v <= lastVersion; v++) {
            List<AddedFile> added = appendedBy(v);
            for (int i = v == start.version() ? (int) start.index() : 0; i < added.size(); i++) {
                AddedFile f = added.get(i);
                if (files.size() >= maxFiles || bytes >= maxBytes) {
                    return new SourceBatch(start, new DeltaOffset(v, i), files);
                }
                files.add(f);
                bytes += f.file().size();
            }
        }
        DeltaOffset end =
                lastVersion + 1 > start.version() ? new DeltaOffset(lastVersion + 1, 0) : start;
        return new SourceBatch(start, end, files);
    }

    /** See {@link DeltaTable#history}. */
    List<HistoryEntry> history(int limit) {
        long last = snapshots.version();
        List<HistoryEntry> entries = new ArrayList<>();
        for (long v = last; v >= 0 && entries.size() < limit; v--) {
            LogEntry e = entry(v);
            entries.add(
                    new HistoryEntry(
                            v,
                            e.timestamp,
                            e.operation,
                            e.appId,
                            e.batchId,
                            e.added.size(),
                            e.added.stream()
                                    .mapToLong(f -> Math.max(0, f.file().numRecords()))
                                    .sum(),
                            e.removed.size(),
                            e.completeness(),
                            e.metadata && v > 0 ? schemaChange(v) : ""));
        }
        return entries;
    }

    /** What version {@code version}'s {@code metaData} changed ({@link SchemaChange}). */
    private String schemaChange(long version) {
        try {
            return SchemaChange.between(
                    snapshots.atVersion(version - 1), snapshots.atVersion(version));
        } catch (KernelException e) {
            // The version before is gone (a log checkpoint and a cleanup): nothing to compare.
            return "";
        }
    }

    /**
     * See {@link DeltaTable#completenessAt}: the newest batch commit ({@code txn}) at or before
     * {@code version}, within {@link #COMPLETENESS_LOOKBACK} versions and while their entries are
     * there.
     */
    Completeness completenessAt(long version) {
        for (long v = version; v >= 0 && v > version - COMPLETENESS_LOOKBACK; v--) {
            LogEntry e;
            try {
                e = entry(v);
            } catch (IllegalArgumentException cleanedUp) {
                return Completeness.NONE;
            }
            if (e.appId != null) {
                return e.completeness();
            }
        }
        return Completeness.NONE;
    }

    /** See {@link DeltaTable#removedSince}. */
    Set<String> removedSince(Instant since) {
        Set<String> removed = new HashSet<>();
        for (long v = snapshots.version(); v >= 0; v--) {
            LogEntry e = entry(v);
            e.removed.forEach(p -> removed.add(p.substring(p.lastIndexOf('/') + 1)));
            if (e.timestamp.isBefore(since)) {
                break;
            }
        }
        return removed;
    }

    /** The added files of a version a stream reads; refuses versions that remove data. */
    private List<AddedFile> appendedBy(long version) {
        LogEntry e = entry(version);
        if (!e.removed.isEmpty()) {
            throw new IllegalStateException(
                    "Delta table "
                            + path
                            + " version "
                            + version
                            + " removes "
                            + e.removed.size()
                            + " data file(s) ("
                            + e.operation
                            + "): a stream reads tables that are only appended to. Read its"
                            + " snapshot instead, or restart the stream from a later version.");
        }
        return e.added;
    }

    private static boolean exists(Path p) {
        try {
            return p.getFileSystem().exists(p);
        } catch (IOException e) {
            return false;
        }
    }
}
