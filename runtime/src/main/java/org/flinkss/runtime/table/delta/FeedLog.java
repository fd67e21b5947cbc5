package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.types.logical.RowType;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.DataFileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The writes of a table with a change data feed ({@link ChangeDataFeed#PROPERTY}), each one log
 * entry this class writes itself, put-if-absent, of Kernel's own action rows ({@link
 * KernelInternals}): Delta Kernel 4.0.0 reads such a table but refuses to build any transaction on
 * it (and to create one). A version is written only if no other writer wrote it first; a commit
 * that finds it taken reads the table again (the {@code txn} check included) and, unless it was
 * planned on the version it lost, tries again, as Kernel's own conflict resolution would.
 *
 * <p>Protocol: a new table is {@code minReaderVersion} 1, {@code minWriterVersion} 4 (the legacy
 * protocol that carries {@code changeDataFeed}), as delta-spark creates a table with {@code
 * delta.enableChangeDataFeed = true}. No log checkpoint is written (Kernel's checkpointer refuses
 * these tables too): the log is read from its JSON entries.
 */
final class FeedLog {

    private static final Logger LOG = LoggerFactory.getLogger(DeltaTable.class);

    /** Attempts of a commit not tied to a planned version that lost its version to a writer. */
    private static final int MAX_ATTEMPTS = 10;

    private static final int MIN_WRITER_VERSION = 4;

    private final String path;
    private final Engine engine;
    private final SnapshotReader snapshots;

    FeedLog(String path, Engine engine, SnapshotReader snapshots) {
        this.path = path;
        this.engine = engine;
        this.snapshots = snapshots;
    }

    /** Whether the table exists and has its change data feed on. */
    boolean enabled() {
        return snapshots
                .latestIfExists()
                .map(s -> ChangeDataFeed.enabledIn(KernelInternals.properties(s)))
                .orElse(false);
    }

    /**
     * Whether this class writes the table's log: it exists, and Kernel 4.0.0 refuses to write it
     * (its change data feed is on, or it has {@code CHECK} constraints, {@link DeltaConstraints}).
     */
    boolean writes() {
        return snapshots
                .latestIfExists()
                .map(s -> KernelInternals.properties(s))
                .map(p -> ChangeDataFeed.enabledIn(p) || !DeltaConstraints.checks(p).isEmpty())
                .orElse(false);
    }

    /** Version 0 with the feed on; {@code false} when another writer created the table first. */
    boolean create(RowType rowType, Map<String, String> properties) {
        long now = System.currentTimeMillis();
        return write(
                0,
                List.of(
                        commitInfo(now, "CREATE TABLE", true),
                        KernelInternals.protocolAction(1, MIN_WRITER_VERSION),
                        KernelInternals.metadataAction(
                                null, DeltaSchema.toDelta(rowType), properties, now)));
    }

    /** See {@link DeltaTable#replace}, for a table with the feed or turning it on. */
    long replace(RowType rowType, Map<String, String> properties) {
        return writeNext(
                "replacing it",
                (latest, now) -> {
                    List<Row> actions = new ArrayList<>();
                    actions.add(commitInfo(now, "REPLACE TABLE", false));
                    if (ChangeDataFeed.enabledIn(properties)
                            && !ChangeDataFeed.enabledIn(KernelInternals.properties(latest))) {
                        actions.add(protocolWithFeed(latest));
                    }
                    actions.add(
                            KernelInternals.metadataAction(
                                    latest, DeltaSchema.toDelta(rowType), properties, now));
                    actions.addAll(
                            KernelInternals.removeActions(latest, engine, name -> true, now));
                    return actions;
                });
    }

    /**
     * The protocol a table turning its feed on goes to: writer version 4 (legacy), refused for a
     * table of table features (writer version 7), whose feature list this class does not write.
     */
    private Row protocolWithFeed(Snapshot latest) {
        int[] versions = KernelInternals.protocolVersions(latest);
        if (versions[1] >= 7) {
            throw new IllegalStateException(
                    "Delta table "
                            + path
                            + " has writer version "
                            + versions[1]
                            + " (table features): turning its change data feed on is not"
                            + " supported here. Delete its folder (a new table gets the feed) or"
                            + " write to another warehouse.");
        }
        return KernelInternals.protocolAction(
                versions[0], Math.max(versions[1], MIN_WRITER_VERSION));
    }

    /** See {@link DeltaTable#setProperties}, for a table with the feed. */
    long setProperties(Map<String, String> properties) {
        return writeNext(
                "setting its properties",
                (latest, now) -> {
                    Map<String, String> merged = new HashMap<>(KernelInternals.properties(latest));
                    merged.putAll(properties);
                    return List.of(
                            commitInfo(now, "SET TBLPROPERTIES", false),
                            KernelInternals.metadataAction(
                                    latest, latest.getSchema(), merged, now));
                });
    }

    /** See {@link DeltaTable#rewrite}, for a table with the feed: no {@code txn}. */
    long rewrite(Set<String> removed, List<DataFile> added) {
        OperationInfo info = new OperationInfo("WRITE", Map.of("mode", "Overwrite"), Map.of());
        return writeNext(
                "a rewrite",
                (latest, now) -> actions(latest, now, null, -1, removed, added, List.of(), info));
    }

    /**
     * Writes the version after the latest of the actions {@code actionsOf} makes for it, reading
     * the table again and trying again when another writer took that version.
     */
    long writeNext(String what, BiFunction<Snapshot, Long, List<Row>> actionsOf) {
        for (int attempt = 1; ; attempt++) {
            Snapshot latest = snapshots.latest();
            long version = latest.getVersion() + 1;
            if (write(version, actionsOf.apply(latest, System.currentTimeMillis()))) {
                return version;
            }
            refuseAfter(attempt, what);
        }
    }

    /**
     * Writes the version after {@code planned} of the actions {@code actionsOf} makes for it, if
     * the table is still at {@code planned} (the actions were checked against its rows).
     *
     * @throws TableChangedException if it is not, or another writer took the version
     */
    long writeOn(long planned, BiFunction<Snapshot, Long, List<Row>> actionsOf) {
        Snapshot latest = snapshots.latest();
        if (latest.getVersion() != planned) {
            throw new TableChangedException(path, planned, latest.getVersion());
        }
        if (!write(planned + 1, actionsOf.apply(latest, System.currentTimeMillis()))) {
            throw new TableChangedException(path, planned, snapshots.version());
        }
        return planned + 1;
    }

    private static Row commitInfo(long now, String operation, boolean blindAppend) {
        return KernelInternals.commitInfoAction(
                now,
                DeltaTable.ENGINE_INFO,
                new OperationInfo(operation, Map.of(), Map.of()),
                blindAppend);
    }

    /**
     * See {@link DeltaTable#commit}, for a table with the feed: an append, or an overwrite that
     * removes every file of the version it is written on (complete mode, as Spark's {@code
     * DeltaSink}: the feed of such a version is its removes' rows deleted and its adds' inserted).
     */
    CommitResult commit(String appId, long batchId, List<DataFile> files, WriteMode mode) {
        OperationInfo info =
                new OperationInfo(
                        "STREAMING UPDATE",
                        Map.of(
                                "outputMode",
                                mode == WriteMode.OVERWRITE ? "Complete" : "Append",
                                "queryId",
                                appId,
                                "epochId",
                                Long.toString(batchId)),
                        Map.of());
        for (int attempt = 1; ; attempt++) {
            Snapshot latest = snapshots.latest();
            Optional<CommitResult> held = held(latest, appId, batchId);
            if (held.isPresent()) {
                return held.get();
            }
            Set<String> removed = mode == WriteMode.OVERWRITE ? null : Set.of();
            Optional<CommitResult> done =
                    tryCommit(latest, appId, batchId, removed, files, List.of(), info);
            if (done.isPresent()) {
                return done.get();
            }
            refuseAfter(attempt, "batch " + batchId + " of " + appId);
        }
    }

    /**
     * See {@link DeltaTable#merge}, with the version's change data files.
     *
     * @throws TableChangedException if the table is no longer at {@code plannedVersion}
     */
    CommitResult merge(
            String appId,
            long batchId,
            long plannedVersion,
            Set<String> removed,
            List<DataFile> added,
            List<DataFile> changeFiles,
            OperationInfo info) {
        Snapshot latest = snapshots.latest();
        Optional<CommitResult> held = held(latest, appId, batchId);
        if (held.isPresent()) {
            return held.get();
        }
        if (latest.getVersion() != plannedVersion) {
            throw new TableChangedException(path, plannedVersion, latest.getVersion());
        }
        return tryCommit(latest, appId, batchId, removed, added, changeFiles, info)
                .orElseThrow(
                        () -> new TableChangedException(path, plannedVersion, snapshots.version()));
    }

    /** The result of a batch the table holds already (a replay), if it does. */
    private Optional<CommitResult> held(Snapshot latest, String appId, long batchId) {
        long held = KernelInternals.latestTransactionVersion(latest, engine, appId).orElse(-1);
        if (held < batchId) {
            return Optional.empty();
        }
        LOG.info(
                "Delta table {}: batch {} of {} skipped, the table holds batches up to {}",
                path,
                batchId,
                appId,
                held);
        return Optional.of(new CommitResult(false, appId, batchId, latest.getVersion(), held));
    }

    /**
     * Writes the version after {@code latest}; empty when another writer wrote it first.
     *
     * @param removed names of the files of {@code latest} to remove; null: all of them
     */
    private Optional<CommitResult> tryCommit(
            Snapshot latest,
            String appId,
            long batchId,
            Set<String> removed,
            List<DataFile> added,
            List<DataFile> changeFiles,
            OperationInfo info) {
        long next = latest.getVersion() + 1;
        List<Row> actions =
                actions(
                        latest,
                        System.currentTimeMillis(),
                        appId,
                        batchId,
                        removed,
                        added,
                        changeFiles,
                        info);
        Optional<Long> version = write(next, actions) ? Optional.of(next) : Optional.empty();
        version.ifPresent(
                v ->
                        LOG.info(
                                "Delta table {}: batch {} of {} committed as version {} ({}: {}"
                                        + " files added, {} change data files)",
                                path,
                                batchId,
                                appId,
                                v,
                                info.operation(),
                                added.size(),
                                changeFiles.size()));
        return version.map(v -> new CommitResult(true, appId, batchId, v, batchId));
    }

    /**
     * The actions of a data commit on {@code latest}: its {@code commitInfo}, a {@code txn} unless
     * {@code appId} is null, the removes, the adds and the {@code cdc} actions.
     *
     * @param removed names of the files of {@code latest} to remove; null: all of them
     */
    private List<Row> actions(
            Snapshot latest,
            long now,
            String appId,
            long batchId,
            Set<String> removed,
            List<DataFile> added,
            List<DataFile> changeFiles,
            OperationInfo info) {
        StructType schema = latest.getSchema();
        List<Row> actions = new ArrayList<>();
        actions.add(
                KernelInternals.commitInfoAction(
                        now,
                        DeltaTable.ENGINE_INFO,
                        info,
                        removed != null && removed.isEmpty() && changeFiles.isEmpty()));
        if (appId != null) {
            actions.add(KernelInternals.txnAction(appId, batchId, now));
        }
        if (removed == null || !removed.isEmpty()) {
            actions.addAll(
                    KernelInternals.removeActions(
                            latest,
                            engine,
                            name -> removed == null || removed.contains(name),
                            now));
        }
        for (DataFile file : added) {
            actions.add(
                    KernelInternals.addAction(
                            schema,
                            path,
                            new DataFileStatus(
                                    qualified(file.path()),
                                    file.size(),
                                    file.modificationTime(),
                                    Optional.of(FileStatistics.of(file, schema)))));
        }
        for (DataFile file : changeFiles) {
            actions.add(KernelInternals.cdcAction(relative(file.path()), file.size()));
        }
        return actions;
    }

    /** Writes the log entry of {@code version} unless it exists; whether it was written. */
    private boolean write(long version, List<Row> actions) {
        String file = LogEntry.file(path, version).toString();
        try {
            engine.getJsonHandler()
                    .writeJsonFileAtomically(file, FlinkFileIO.iterator(actions.iterator()), false);
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Delta table " + path + ": cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private void refuseAfter(int attempt, String what) {
        if (attempt >= MAX_ATTEMPTS) {
            throw new IllegalStateException(
                    "Delta table "
                            + path
                            + ": "
                            + what
                            + " lost its version to another writer's commit "
                            + attempt
                            + " times and was not committed. A table has one writer query: stop"
                            + " the other writer and rerun.");
        }
    }

    private static String qualified(String file) {
        Path p = new Path(file);
        try {
            return p.makeQualified(p.getFileSystem()).toString();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resolve " + file + ": " + e.getMessage(), e);
        }
    }

    /** A file's path relative to the table's root, as the log records files inside it. */
    private String relative(String file) {
        String root = new Path(qualified(path)).toUri().getPath() + "/";
        String own = new Path(qualified(file)).toUri().getPath();
        if (!own.startsWith(root)) {
            throw new IllegalArgumentException(
                    "change data file " + file + " is not inside Delta table " + path);
        }
        return own.substring(root.length());
    }
}
