package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.types.logical.RowType;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.KernelException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * A table's writes, each one Kernel {@link Transaction}: create, replace, properties, a rewrite
 * outside any stream, and a micro-batch's commit with its {@code txn} action (append or overwrite,
 * skipped when the table holds the batch). After a commit, the work Kernel asks for (a checkpoint
 * of the log, a checksum) runs on the post-commit executor.
 */
final class TransactionWriter {

    /** Logged under DeltaTable's name, the one log configurations and readers of logs know. */
    private static final Logger LOG = LoggerFactory.getLogger(DeltaTable.class);

    /** Attempts of a commit whose race resolution read a short log listing. */
    private static final int SHORT_LISTING_ATTEMPTS = 6;

    private static final int MAX_OVERWRITE_ATTEMPTS = 10;

    private final String path;
    private final Engine engine;
    private final Table table;
    private final SnapshotReader snapshots;
    private final TableMaintenance maintenance;
    private final Executor postCommit;

    TransactionWriter(
            String path,
            Engine engine,
            Table table,
            SnapshotReader snapshots,
            TableMaintenance maintenance,
            Executor postCommit) {
        this.path = path;
        this.engine = engine;
        this.table = table;
        this.snapshots = snapshots;
        this.maintenance = maintenance;
        this.postCommit = postCommit;
    }

    /** See {@link DeltaTable#create}. */
    long create(RowType rowType, Map<String, String> properties) {
        if (snapshots.latestIfExists().isEmpty()) {
            LegacyTables.refuseIfLegacy(path);
            try {
                return createWith(rowType, properties, List.of());
            } catch (TableAlreadyExistsException | ConcurrentWriteException e) {
                // Another writer created it first: fall through and compare columns.
            }
        }
        RowType existing = DeltaSchema.toFlink(snapshots.latest().getSchema());
        if (!DeltaConstraints.writableWith(existing, rowType)) {
            throw new IllegalStateException(
                    "Delta table "
                            + path
                            + " has columns "
                            + existing
                            + ", not "
                            + rowType
                            + ": write to another table, or delete this one (its folder) first");
        }
        return snapshots.version();
    }

    /** Version 0: the table with its columns, properties and these files (a conversion's). */
    long createWith(RowType rowType, Map<String, String> properties, List<DataFile> files) {
        Transaction txn =
                table.createTransactionBuilder(
                                engine, DeltaTable.ENGINE_INFO, Operation.CREATE_TABLE)
                        .withSchema(engine, DeltaSchema.toDelta(rowType))
                        .withTableProperties(engine, properties)
                        .build(engine);
        return commitActions(txn, addActions(txn, files));
    }

    /** See {@link DeltaTable#replace}. */
    long replace(RowType rowType, Map<String, String> properties) {
        snapshots.latest();
        Transaction txn =
                KernelInternals.replaceTableTransaction(table, engine, DeltaTable.ENGINE_INFO)
                        .withSchema(engine, DeltaSchema.toDelta(rowType))
                        .withTableProperties(engine, properties)
                        .build(engine);
        try {
            return commitActions(txn, List.of());
        } catch (ConcurrentWriteException e) {
            throw new IllegalStateException(
                    "Delta table "
                            + path
                            + ": replacing it lost to another writer's commit ("
                            + e.getMessage()
                            + "); nothing was changed. Run it again once the writer is done.",
                    e);
        }
    }

    /** See {@link DeltaTable#setProperties}. */
    long setProperties(Map<String, String> properties) {
        snapshots.latest();
        Transaction txn =
                table.createTransactionBuilder(
                                engine, DeltaTable.ENGINE_INFO, Operation.MANUAL_UPDATE)
                        .withTableProperties(engine, properties)
                        .build(engine);
        return commitActions(txn, List.of());
    }

    /** See {@link DeltaTable#rewrite}. */
    long rewrite(Set<String> removed, List<DataFile> added) {
        snapshots.latest();
        Transaction txn =
                table.createTransactionBuilder(engine, DeltaTable.ENGINE_INFO, Operation.WRITE)
                        .withMaxRetries(0)
                        .build(engine);
        List<Row> actions = new ArrayList<>(removeNamed(txn.getReadTableVersion(), removed));
        actions.addAll(addActions(txn, added));
        try {
            return commitActions(txn, actions);
        } catch (ConcurrentWriteException e) {
            throw new IllegalStateException(
                    "Delta table "
                            + path
                            + ": a rewrite lost to another writer's commit ("
                            + e.getMessage()
                            + "); nothing was changed. Run it again once the writer is done.",
                    e);
        }
    }

    /** See {@link DeltaTable#commit}. */
    CommitResult commit(String appId, long batchId, List<DataFile> files, WriteMode mode) {
        if (appId == null || appId.isEmpty() || batchId < 0) {
            throw new IllegalArgumentException(
                    "a commit needs a query id and a batch id >= 0, not '"
                            + appId
                            + "'/"
                            + batchId);
        }
        for (int attempt = 1; ; attempt++) {
            Transaction txn;
            try {
                txn =
                        table.createTransactionBuilder(
                                        engine, DeltaTable.ENGINE_INFO, Operation.STREAMING_UPDATE)
                                .withTransactionId(engine, appId, batchId)
                                // Kernel re-checks an append against the winner and retries it
                                // itself; it would rebase an overwrite's removes blindly, so we
                                // re-plan those.
                                .withMaxRetries(mode == WriteMode.APPEND ? 20 : 0)
                                .build(engine);
            } catch (ConcurrentTransactionException e) {
                return skipped(appId, batchId);
            } catch (TableNotFoundException e) {
                snapshots.latest(); // the error that names a missing or legacy table
                throw e;
            } catch (KernelException | IllegalStateException e) {
                if (KernelInternals.isShortListing(e) && attempt < SHORT_LISTING_ATTEMPTS) {
                    pauseAfterShortListing(attempt);
                    continue;
                }
                throw e;
            }
            List<Row> actions = new ArrayList<>();
            if (mode == WriteMode.OVERWRITE) {
                actions.addAll(removeNamed(txn.getReadTableVersion(), null));
            }
            actions.addAll(addActions(txn, files));
            try {
                long version = commitActions(txn, actions);
                LOG.info(
                        "Delta table {}: batch {} of {} committed as version {} ({} files, {})",
                        path,
                        batchId,
                        appId,
                        version,
                        files.size(),
                        mode);
                return new CommitResult(true, appId, batchId, version, batchId);
            } catch (ConcurrentTransactionException e) {
                return skipped(appId, batchId);
            } catch (ConcurrentWriteException e) {
                if (mode == WriteMode.OVERWRITE && attempt < MAX_OVERWRITE_ATTEMPTS) {
                    continue;
                }
                throw new IllegalStateException(
                        "Delta table "
                                + path
                                + ": batch "
                                + batchId
                                + " of "
                                + appId
                                + " lost its commit to another writer "
                                + attempt
                                + " time(s) and was not committed ("
                                + e.getMessage()
                                + "). A table has one writer query: stop the other writer and"
                                + " rerun.",
                        e);
            } catch (KernelException | IllegalStateException | IllegalArgumentException e) {
                if (KernelInternals.isShortListing(e) && attempt < SHORT_LISTING_ATTEMPTS) {
                    LOG.info(
                            "Delta table {}: batch {} of {} lost a race and resolving it read a"
                                    + " short log listing ({}): committing again",
                            path,
                            batchId,
                            appId,
                            e.getMessage());
                    pauseAfterShortListing(attempt);
                    continue;
                }
                throw e;
            }
        }
    }

    /** See {@link DeltaTable#merge}. */
    CommitResult merge(
            String appId,
            long batchId,
            long plannedVersion,
            Set<String> removed,
            List<DataFile> added,
            OperationInfo info) {
        Transaction txn;
        try {
            txn =
                    table.createTransactionBuilder(engine, DeltaTable.ENGINE_INFO, Operation.WRITE)
                            .withTransactionId(engine, appId, batchId)
                            // Planned on one version: a commit rebased on another would remove
                            // files without their rows' new values. The caller plans again.
                            .withMaxRetries(0)
                            .build(engine);
        } catch (ConcurrentTransactionException e) {
            return skipped(appId, batchId);
        }
        long read = txn.getReadTableVersion();
        if (read != plannedVersion) {
            throw new TableChangedException(path, plannedVersion, read);
        }
        List<Row> actions = new ArrayList<>(removeNamed(read, removed));
        actions.addAll(addActions(txn, added));
        try {
            long version = commitActions(txn, actions, new OperationEngine(engine, info));
            LOG.info(
                    "Delta table {}: batch {} of {} committed as version {} ({}: {} files"
                            + " removed, {} added)",
                    path,
                    batchId,
                    appId,
                    version,
                    info.operation(),
                    removed.size(),
                    added.size());
            return new CommitResult(true, appId, batchId, version, batchId);
        } catch (ConcurrentTransactionException e) {
            return skipped(appId, batchId);
        } catch (ConcurrentWriteException e) {
            throw new TableChangedException(path, plannedVersion, snapshots.version());
        }
    }

    /** See {@link DeltaTable#addColumns}. */
    long addColumns(RowType grown) {
        snapshots.latest();
        Transaction txn =
                table.createTransactionBuilder(
                                engine, DeltaTable.ENGINE_INFO, Operation.MANUAL_UPDATE)
                        .withMaxRetries(0)
                        .build(engine);
        grow(txn, grown);
        return commitActions(txn, List.of());
    }

    /** See {@link DeltaTable#appendWithSchema}. */
    CommitResult appendWithSchema(String appId, long batchId, List<DataFile> files, RowType grown) {
        Transaction txn;
        try {
            txn =
                    table.createTransactionBuilder(
                                    engine, DeltaTable.ENGINE_INFO, Operation.STREAMING_UPDATE)
                            .withTransactionId(engine, appId, batchId)
                            // Kernel does not rebase a schema change: a lost race fails whole.
                            .withMaxRetries(0)
                            .build(engine);
        } catch (ConcurrentTransactionException e) {
            return skipped(appId, batchId);
        }
        grow(txn, grown);
        try {
            long version = commitActions(txn, addActions(txn, files));
            LOG.info(
                    "Delta table {}: batch {} of {} committed as version {} ({} files, columns now"
                            + " {})",
                    path,
                    batchId,
                    appId,
                    version,
                    files.size(),
                    grown);
            return new CommitResult(true, appId, batchId, version, batchId);
        } catch (ConcurrentTransactionException e) {
            return skipped(appId, batchId);
        } catch (ConcurrentWriteException e) {
            throw new IllegalStateException(
                    "Delta table "
                            + path
                            + ": batch "
                            + batchId
                            + " of "
                            + appId
                            + ", which adds columns, lost its commit to another writer and was not"
                            + " committed ("
                            + e.getMessage()
                            + "). A table has one writer query: stop the other writer and rerun.",
                    e);
        }
    }

    /** The transaction commits {@code grown} as the table's schema; refused unless it grows. */
    private void grow(Transaction txn, RowType grown) {
        RowType current = DeltaSchema.toFlink(txn.getSchema(engine));
        if (!SchemaGrowth.isGrowthOf(current, grown)) {
            throw new IllegalArgumentException(
                    "Delta table "
                            + path
                            + " has columns "
                            + current
                            + ": "
                            + grown
                            + " does not only add nullable columns after them, the one schema"
                            + " change made in place");
        }
        KernelInternals.withSchema(txn, DeltaSchema.toDelta(grown));
    }

    private static void pauseAfterShortListing(int attempt) {
        try {
            Thread.sleep(25L * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while committing again", e);
        }
    }

    private CommitResult skipped(String appId, long batchId) {
        long held =
                KernelInternals.latestTransactionVersion(snapshots.latest(), engine, appId)
                        .orElse(-1);
        LOG.info(
                "Delta table {}: batch {} of {} skipped, the table holds batches up to {}",
                path,
                batchId,
                appId,
                held);
        return new CommitResult(false, appId, batchId, snapshots.version(), held);
    }

    private long commitActions(Transaction txn, List<Row> actions) {
        return commitActions(txn, actions, engine);
    }

    private long commitActions(Transaction txn, List<Row> actions, Engine committing) {
        CloseableIterable<Row> rows =
                CloseableIterable.inMemoryIterable(FlinkFileIO.iterator(actions.iterator()));
        TransactionCommitResult result = txn.commit(committing, rows);
        List<PostCommitHook> hooks = result.getPostCommitHooks();
        if (!hooks.isEmpty()) {
            postCommit.execute(() -> runHooks(hooks, result.getVersion()));
        }
        return result.getVersion();
    }

    private void runHooks(List<PostCommitHook> hooks, long version) {
        for (PostCommitHook hook : hooks) {
            try {
                if (hook.getType() == PostCommitHook.PostCommitHookType.CHECKPOINT) {
                    maintenance.checkpointAt(version);
                } else {
                    hook.threadSafeInvoke(engine);
                }
            } catch (IOException | RuntimeException e) {
                // A checkpoint or checksum is an optimization: the commit stands without it.
                LOG.warn(
                        "Delta table {}: {} after version {} failed: {}",
                        path,
                        hook.getType(),
                        version,
                        e.toString());
            }
        }
    }

    private List<Row> addActions(Transaction txn, List<DataFile> files) {
        Row state = txn.getTransactionState(engine);
        DataWriteContext context = Transaction.getWriteContext(engine, state, Map.of());
        StructType schema = txn.getSchema(engine);
        List<DataFileStatus> statuses = new ArrayList<>();
        for (DataFile file : files) {
            statuses.add(
                    new DataFileStatus(
                            qualify(file.path()),
                            file.size(),
                            file.modificationTime(),
                            Optional.of(FileStatistics.of(file, schema))));
        }
        List<Row> actions = new ArrayList<>();
        try (CloseableIterator<Row> it =
                Transaction.generateAppendActions(
                        engine, state, FlinkFileIO.iterator(statuses.iterator()), context)) {
            it.forEachRemaining(actions::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return actions;
    }

    /** Remove actions for the files of {@code version} named in {@code names} (null: all). */
    private List<Row> removeNamed(long version, Set<String> names) {
        if (version < 0) {
            return List.of();
        }
        return KernelInternals.removeActions(
                snapshots.atVersion(version),
                engine,
                name -> names == null || names.contains(name),
                System.currentTimeMillis());
    }

    private static String qualify(String file) {
        Path p = new Path(file);
        try {
            return p.makeQualified(p.getFileSystem()).toString();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resolve " + file + ": " + e.getMessage(), e);
        }
    }
}
