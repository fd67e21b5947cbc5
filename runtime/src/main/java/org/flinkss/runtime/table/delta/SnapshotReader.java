package org.flinkss.runtime.table.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.KernelException;
import io.delta.kernel.exceptions.TableNotFoundException;

import org.flinkss.runtime.QueryException;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A table's snapshots, as Kernel's {@link Table} gives them: the latest, by version ({@code VERSION
 * AS OF}) and by time ({@code TIMESTAMP AS OF}), made {@link DeltaSnapshot}s. Remembers the newest
 * snapshot it read, so that asking again for that version does not list the log again.
 */
final class SnapshotReader {

    private final String path;
    private final Engine engine;
    private final Table table;

    /** The newest snapshot {@link #latest} found (then the table's newest; maybe no more). */
    private Snapshot lastLatest;

    SnapshotReader(String path, Engine engine, Table table) {
        this.path = path;
        this.engine = engine;
        this.table = table;
    }

    /** Kernel's latest snapshot, or empty when the folder holds no Delta table. */
    Optional<Snapshot> latestIfExists() {
        try {
            Snapshot latest = table.getLatestSnapshot(engine);
            lastLatest = latest;
            return Optional.of(latest);
        } catch (TableNotFoundException e) {
            return Optional.empty();
        } catch (RuntimeException e) {
            throw explained(e);
        }
    }

    /**
     * Kernel's latest snapshot; refused, naming the table, when there is none (with the command
     * that converts a table of the earlier format).
     */
    Snapshot latest() {
        try {
            Snapshot latest = table.getLatestSnapshot(engine);
            lastLatest = latest;
            return latest;
        } catch (TableNotFoundException e) {
            LegacyTables.refuseIfLegacy(path);
            throw new IllegalArgumentException(
                    "no Delta table at "
                            + path
                            + " (no _delta_log): run the query that writes it first",
                    e);
        } catch (RuntimeException e) {
            throw explained(e);
        }
    }

    /**
     * Kernel's failure to read a damaged log, said in one line that names the damaged file and
     * {@code table repair} ({@link DeltaLogDamage}); any other failure as it is.
     */
    private RuntimeException explained(RuntimeException e) {
        Optional<DeltaLogDamage> damage = DeltaLogDamage.find(path);
        return damage.isPresent() ? new QueryException(damage.get().message(), e) : e;
    }

    /** The table's current version. */
    long version() {
        return latest().getVersion();
    }

    /**
     * Kernel's snapshot at {@code version}: the latest one when that is the version asked for (a
     * new stream's start, an overwrite's removes), else Kernel's time travel. Kernel 4.0's time
     * travel looks for the checkpoint at or before the version by listing the log and stops at the
     * first file that is neither a commit nor a checkpoint: in a table with checksum files ({@code
     * .crc}, which every commit writes) it never finds one, logs "Cannot find a complete
     * checkpoint", and lists the whole log, a cost that grows with the table's history. The latest
     * snapshot starts from {@code _last_checkpoint} and lists only the entries after it.
     */
    Snapshot atVersion(long version) {
        Snapshot seen = lastLatest;
        if (seen != null && seen.getVersion() == version) {
            return seen; // a version's snapshot never changes: no second listing of the log
        }
        Snapshot latest = latest();
        return latest.getVersion() == version
                ? latest
                : table.getSnapshotAsOfVersion(engine, version);
    }

    /** The table as of its current version. */
    DeltaSnapshot current() {
        return describe(latest());
    }

    /** {@link #current} with each file's statistics from its {@code add} action. */
    DeltaSnapshot currentWithStatistics() {
        return describe(latest(), true);
    }

    /** The table as of {@code version}, refused naming the versions there are. */
    DeltaSnapshot at(long version) {
        try {
            return describe(atVersion(version));
        } catch (KernelException e) {
            throw new IllegalArgumentException(
                    "Delta table "
                            + path
                            + " has no version "
                            + version
                            + " (it has 0 to "
                            + version()
                            + " unless older ones were cleaned up): "
                            + e.getMessage(),
                    e);
        }
    }

    /** The table as of the newest version committed at or before {@code time}. */
    DeltaSnapshot asOf(Instant time) {
        latest();
        try {
            return describe(table.getSnapshotAsOfTimestamp(engine, time.toEpochMilli()));
        } catch (KernelException e) {
            throw new IllegalArgumentException(
                    "Delta table " + path + " has no version as of " + time + ": " + e.getMessage(),
                    e);
        }
    }

    /** A Kernel snapshot as this project reads it: version, time, columns, properties, files. */
    DeltaSnapshot describe(Snapshot snapshot) {
        return describe(snapshot, false);
    }

    private DeltaSnapshot describe(Snapshot snapshot, boolean statistics) {
        try {
            Map<String, DeletedRows.Vector> deleted = new HashMap<>();
            List<DataFile> files =
                    statistics
                            ? KernelInternals.dataFilesWithStatistics(snapshot, engine, deleted)
                            : KernelInternals.dataFiles(snapshot, engine, deleted);
            return new DeltaSnapshot(
                    path,
                    snapshot.getVersion(),
                    Instant.ofEpochMilli(snapshot.getTimestamp(engine)),
                    DeltaSchema.toFlink(snapshot.getSchema()),
                    KernelInternals.properties(snapshot),
                    files,
                    deleted.isEmpty() ? DeletedRows.NONE : new DeletedRows(deleted));
        } catch (RuntimeException e) {
            throw explained(e);
        }
    }
}
