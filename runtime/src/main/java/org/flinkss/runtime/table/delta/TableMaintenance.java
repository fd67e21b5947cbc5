package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.CheckpointAlreadyExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The upkeep of a table outside its commits: Delta's {@code VACUUM} of unreferenced data files, and
 * checkpoints of its log.
 */
final class TableMaintenance {

    /** Logged under DeltaTable's name, the one log configurations and readers of logs know. */
    private static final Logger LOG = LoggerFactory.getLogger(DeltaTable.class);

    private final String path;
    private final Engine engine;
    private final SnapshotReader snapshots;
    private final VersionReader versions;

    TableMaintenance(String path, Engine engine, SnapshotReader snapshots, VersionReader versions) {
        this.path = path;
        this.engine = engine;
        this.snapshots = snapshots;
        this.versions = versions;
    }

    /** See {@link DeltaTable#vacuum}. */
    VacuumResult vacuum(
            Duration retention, boolean force, boolean dryRun, Predicate<String> writersFile) {
        Duration minimum = DeltaTable.DEFAULT_RETENTION;
        String configured =
                KernelInternals.properties(snapshots.latest())
                        .get("delta.deletedFileRetentionDuration");
        if (configured != null) {
            minimum = parseInterval(configured);
        }
        if (retention.compareTo(minimum) < 0 && !force) {
            throw new IllegalArgumentException(
                    "vacuum of Delta table "
                            + path
                            + " with a retention of "
                            + retention
                            + " refused: it is shorter than the table's "
                            + minimum
                            + " (delta.deletedFileRetentionDuration), so readers of older versions"
                            + " could lose files they need. Use a longer retention, or force it"
                            + " (--force) if no such reader is active (table vacuum keeps the files"
                            + " a writer staged and has not committed either way).");
        }
        long cutoff = System.currentTimeMillis() - retention.toMillis();
        Set<String> keep = new HashSet<>();
        for (DataFile f : snapshots.current().files()) {
            keep.add(f.path());
        }
        for (long v = snapshots.version(); v >= 0; v--) {
            LogEntry e = versions.entry(v);
            for (int i = 0; i < e.removed.size(); i++) {
                if (e.removedAt.get(i) >= cutoff) {
                    keep.add(e.removed.get(i));
                }
            }
            if (e.timestamp.toEpochMilli() < cutoff) {
                break; // older entries only hold tombstones past the retention
            }
        }
        List<String> deleted = new ArrayList<>();
        long bytes = 0;
        int staged = 0;
        Set<String> removedEver = null;
        try {
            Path root = new Path(path);
            FileSystem fs = root.getFileSystem();
            List<FileStatus> candidates = new ArrayList<>();
            listData(fs, root, candidates);
            // Change data files are Delta's too, and go as Delta's VACUUM deletes them: no
            // snapshot lists them, so once older than the retention (its feed's versions are then
            // past it too).
            Path changeData = new Path(root, ChangeDataFeed.FOLDER);
            if (fs.exists(changeData)) {
                listData(fs, changeData, candidates);
            }
            for (FileStatus f : candidates) {
                String p = f.getPath().makeQualified(fs).toString();
                if (!keep.contains(p) && f.getModificationTime() < cutoff) {
                    String name = f.getPath().getName();
                    if (writersFile.test(name)) {
                        if (removedEver == null) {
                            removedEver = versions.removedSince(Instant.EPOCH);
                        }
                        if (!removedEver.contains(name)) {
                            // Never committed, never removed: staged by the writer for a batch
                            // it has not committed yet, whatever the retention and --force say.
                            staged++;
                            continue;
                        }
                    }
                    if (!dryRun) {
                        fs.delete(f.getPath(), false);
                    }
                    deleted.add(p);
                    bytes += f.getLen();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "vacuum of Delta table " + path + " failed: " + e.getMessage(), e);
        }
        LOG.info(
                "Delta table {}: vacuum {} {} files ({} bytes)",
                path,
                dryRun ? "would delete" : "deleted",
                deleted.size(),
                bytes);
        return new VacuumResult(deleted, bytes, dryRun, staged);
    }

    private static void listData(FileSystem fs, Path dir, List<FileStatus> out) throws IOException {
        FileStatus[] statuses = fs.listStatus(dir);
        if (statuses == null) {
            return;
        }
        for (FileStatus s : statuses) {
            String name = s.getPath().getName();
            if (name.startsWith("_") || name.startsWith(".")) {
                continue;
            }
            if (s.isDir()) {
                listData(fs, s.getPath(), out);
            } else {
                out.add(s);
            }
        }
    }

    /** Delta's interval strings: {@code "interval 7 days"}, {@code "interval 1 hours"}, ... */
    static Duration parseInterval(String interval) {
        String[] parts = interval.trim().toLowerCase().replace("interval", "").trim().split("\\s+");
        long n = Long.parseLong(parts[0]);
        String unit = parts.length > 1 ? parts[1] : "days";
        if (unit.startsWith("week")) {
            return Duration.ofDays(7 * n);
        } else if (unit.startsWith("day")) {
            return Duration.ofDays(n);
        } else if (unit.startsWith("hour")) {
            return Duration.ofHours(n);
        } else if (unit.startsWith("minute")) {
            return Duration.ofMinutes(n);
        } else if (unit.startsWith("second")) {
            return Duration.ofSeconds(n);
        }
        throw new IllegalArgumentException("cannot read the interval '" + interval + "'");
    }

    /** See {@link DeltaTable#checkpoint}. */
    void checkpoint() {
        try {
            checkpointAt(snapshots.version());
        } catch (CheckpointAlreadyExistsException e) {
            // already there
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot checkpoint Delta table " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes the checkpoint at {@code version} from the latest snapshot while that is the version
     * (Kernel's own checkpoint hook takes it by time travel, which lists the whole log: see {@link
     * SnapshotReader#atVersion}).
     */
    void checkpointAt(long version) throws IOException {
        Table fresh = Table.forPath(engine, path);
        Snapshot latest = fresh.getLatestSnapshot(engine);
        Snapshot snapshot =
                latest.getVersion() == version
                        ? latest
                        : fresh.getSnapshotAsOfVersion(engine, version);
        KernelInternals.writeCheckpoint(engine, fresh, snapshot);
    }
}
