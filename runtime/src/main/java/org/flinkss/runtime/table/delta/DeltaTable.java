package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.types.logical.RowType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.KernelException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.ScanImpl;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * A Delta Lake table: Parquet data files and a {@code _delta_log/} written and read with Delta
 * Kernel, readable as they are by Spark with Delta, delta-rs, DuckDB, Trino and Kernel.
 *
 * <p><b>Batches, exactly once.</b> {@link #commit} makes one Delta commit per micro-batch, carrying
 * a {@code txn} action ({@code appId} = the query's id, {@code version} = the batch id) as Spark's
 * Delta sink does. A batch the table already holds for that query (a txn version at or past the
 * batch id) is not written again: the commit is skipped and says so ({@link CommitResult}), so a
 * replay after a failure, a restore from an older checkpoint or a second run that re-plans a
 * committed batch never writes a row twice. Files are committed by path: a writer stages them in
 * the table's folder (invisible to every reader until committed) and commits them once the batch is
 * whole.
 *
 * <p><b>Concurrent writers.</b> Each commit is the file {@code _delta_log/<version>.json}, created
 * only if absent ({@link PutIfAbsent}). Of two writers racing for one version, one wins; Kernel
 * checks the loser's commit against the winner's and retries it at the next version (appends), or
 * fails it with {@link ConcurrentTransactionException} when the winner committed the same batch of
 * the same query, which {@link #commit} reports as skipped. An overwrite is re-planned on the new
 * version (its removes must name the winner's files too). Any other conflict (the winner changed
 * the schema or the protocol) fails with an exception naming the table.
 *
 * <p><b>Checkpoints.</b> Every {@code delta.checkpointInterval} commits (10 unless the table says
 * otherwise) the commit also writes a Parquet checkpoint of the log, so that finding a table's
 * state reads one checkpoint and at most that many JSON entries, however long the history.
 *
 * <p>Not thread-safe for one instance; instances over the same path may be used from any thread or
 * process.
 */
public final class DeltaTable {

    private static final Logger LOG = LoggerFactory.getLogger(DeltaTable.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The {@code engineInfo} of every commit this project makes. */
    public static final String ENGINE_INFO = "flinkss Delta-Kernel/4.0.0";

    /** Delta's default for {@code delta.deletedFileRetentionDuration}: what vacuum keeps. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

    /** The legacy (pre-Delta) table metadata file, see {@code Warehouse}. */
    static final String LEGACY_METADATA = "_table.json";

    /** Attempts of a commit whose race resolution read a short log listing. */
    private static final int SHORT_LISTING_ATTEMPTS = 6;

    private static final int MAX_OVERWRITE_ATTEMPTS = 10;

    /** The parts of a commit entry that reading a range of versions needs. */
    private static final StructType COMMIT_SCHEMA =
            new StructType()
                    .add(
                            "add",
                            new StructType()
                                    .add("path", StringType.STRING)
                                    .add("size", LongType.LONG)
                                    .add("modificationTime", LongType.LONG)
                                    .add("dataChange", BooleanType.BOOLEAN)
                                    .add("stats", StringType.STRING))
                    .add(
                            "remove",
                            new StructType()
                                    .add("path", StringType.STRING)
                                    .add("deletionTimestamp", LongType.LONG)
                                    .add("dataChange", BooleanType.BOOLEAN))
                    .add(
                            "txn",
                            new StructType()
                                    .add("appId", StringType.STRING)
                                    .add("version", LongType.LONG))
                    .add(
                            "commitInfo",
                            new StructType()
                                    .add("timestamp", LongType.LONG)
                                    .add("inCommitTimestamp", LongType.LONG)
                                    .add("operation", StringType.STRING));

    private static final int ADD = 0;
    private static final int REMOVE = 1;
    private static final int TXN = 2;
    private static final int COMMIT_INFO = 3;

    private final String path;
    private final DeltaStorage storage;
    private final Engine engine;
    private final Table table;

    private final Executor postCommit;

    /** The newest snapshot {@link #latest} found (then the table's newest; maybe no more). */
    private Snapshot lastLatest;

    private DeltaTable(String path, DeltaStorage storage, Executor postCommit) {
        this.storage = storage;
        this.engine = storage.engine();
        this.table = Table.forPath(engine, path);
        this.path = stripSlash(table.getPath(engine));
        this.postCommit = postCommit;
    }

    /**
     * The table at {@code path} (a folder or URI; the table need not exist yet), on Flink's file
     * systems.
     */
    public static DeltaTable forPath(String path) {
        return forPath(path, DeltaStorage.flink());
    }

    public static DeltaTable forPath(String path, DeltaStorage storage) {
        return new DeltaTable(path, storage, Runnable::run);
    }

    /**
     * This table with the work Kernel asks for after a commit (the log checkpoint every {@code
     * delta.checkpointInterval} commits, checksum files) run by {@code executor} instead of inside
     * {@link #commit}. A checkpoint of a table of 10,000 files took seconds here: a committer that
     * must not stall its job hands it to a thread of its own. A checkpoint running while the next
     * commit is made is safe: it is a new file, written only if absent.
     */
    public DeltaTable withPostCommitExecutor(Executor executor) {
        return new DeltaTable(path, storage, executor);
    }

    /** The table's folder as a fully qualified URI ({@code file:/...}). */
    public String path() {
        return path;
    }

    public DeltaStorage storage() {
        return storage;
    }

    /** Whether the folder holds a Delta table (a log with a first commit). */
    public boolean exists() {
        try {
            table.getLatestSnapshot(engine);
            return true;
        } catch (TableNotFoundException e) {
            return false;
        }
    }

    /**
     * Whether the folder holds a table of the project's earlier format ({@code _table.json}, no
     * log).
     */
    public boolean isLegacy() {
        return !exists() && fileExists(new Path(path, LEGACY_METADATA));
    }

    // ---------------------------------------------------------------- create and describe

    /**
     * Creates the table (version 0, no data) with these columns and properties. A table that exists
     * with the same columns is left as it is; one with other columns is refused.
     *
     * @return the table's version after the call
     */
    public long create(RowType rowType, Map<String, String> properties) {
        if (!exists()) {
            refuseLegacy();
            try {
                return createWith(rowType, properties, List.of());
            } catch (TableAlreadyExistsException | ConcurrentWriteException e) {
                // Another writer created it first: fall through and compare columns.
            }
        }
        RowType existing = rowType();
        if (!existing.equals(rowType)) {
            throw new IllegalStateException(
                    "Delta table "
                            + path
                            + " has columns "
                            + existing
                            + ", not "
                            + rowType
                            + ": write to another table, or delete this one (its folder) first");
        }
        return version();
    }

    /** Version 0: the table with its columns, properties and these files (a conversion's). */
    long createWith(RowType rowType, Map<String, String> properties, List<DataFile> files) {
        Transaction txn =
                table.createTransactionBuilder(engine, ENGINE_INFO, Operation.CREATE_TABLE)
                        .withSchema(engine, DeltaSchema.toDelta(rowType))
                        .withTableProperties(engine, properties)
                        .build(engine);
        return commitActions(txn, addActions(txn, files));
    }

    /** A table's version, columns and properties, read from one snapshot of its log. */
    public record Head(long version, RowType rowType, Map<String, String> properties) {}

    /**
     * The table's current version, columns and properties from one reading of its log (what {@link
     * #exists}, {@link #version}, {@link #rowType} and {@link #properties} each read anew), or
     * empty when the folder holds no Delta table.
     */
    public Optional<Head> head() {
        Snapshot snapshot;
        try {
            snapshot = table.getLatestSnapshot(engine);
        } catch (TableNotFoundException e) {
            return Optional.empty();
        }
        lastLatest = snapshot;
        return Optional.of(
                new Head(
                        snapshot.getVersion(),
                        DeltaSchema.toFlink(snapshot.getSchema()),
                        ((SnapshotImpl) snapshot).getMetadata().getConfiguration()));
    }

    /** The table's columns as of its current version. */
    public RowType rowType() {
        return DeltaSchema.toFlink(latest().getSchema());
    }

    /** The table's properties as of its current version. */
    public Map<String, String> properties() {
        return ((SnapshotImpl) latest()).getMetadata().getConfiguration();
    }

    /** The table's current version. */
    public long version() {
        return latest().getVersion();
    }

    /** The newest batch id the table holds for a query ({@code txn} action), if any. */
    public OptionalLong committedBatch(String appId) {
        Optional<Long> v = ((SnapshotImpl) latest()).getLatestTransactionVersion(engine, appId);
        return v.map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    /**
     * Replaces the table with an empty one of these columns and properties, in one commit (Delta's
     * {@code REPLACE TABLE}): every data file is removed, the schema and the properties are the
     * given ones. Older versions stay readable until a vacuum.
     *
     * @return the new version
     */
    public long replace(RowType rowType, Map<String, String> properties) {
        latest();
        Transaction txn =
                ((io.delta.kernel.internal.TableImpl) table)
                        .createReplaceTableTransactionBuilder(engine, ENGINE_INFO)
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

    /**
     * Sets table properties in a commit of their own ({@code Manual Update}); no data changes.
     *
     * @return the new version
     */
    public long setProperties(Map<String, String> properties) {
        latest();
        Transaction txn =
                table.createTransactionBuilder(engine, ENGINE_INFO, Operation.MANUAL_UPDATE)
                        .withTableProperties(engine, properties)
                        .build(engine);
        return commitActions(txn, List.of());
    }

    /**
     * Removes the data files whose names are in {@code removed} and adds {@code added}, in one
     * commit ({@code WRITE}): rows replaced outside any stream (a recompute, a static table landed
     * again). Readers see the old files or the new ones, never both or neither.
     *
     * @return the new version
     */
    public long rewrite(Set<String> removed, List<DataFile> added) {
        latest();
        Transaction txn =
                table.createTransactionBuilder(engine, ENGINE_INFO, Operation.WRITE)
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

    /**
     * The names of the data files that versions committed at or after {@code since} removed, read
     * from their log entries, newest first, stopping at the first older entry: what a writer checks
     * before deleting files of its own that the current version does not reference (they may be
     * superseded files that readers of older versions still need).
     */
    public Set<String> removedSince(Instant since) {
        Set<String> removed = new HashSet<>();
        for (long v = version(); v >= 0; v--) {
            Commit c = commit(v);
            c.removed.forEach(p -> removed.add(p.substring(p.lastIndexOf('/') + 1)));
            if (c.timestamp.isBefore(since)) {
                break;
            }
        }
        return removed;
    }

    // ---------------------------------------------------------------- commits

    /** {@link #commit} with {@link WriteMode#APPEND}. */
    public CommitResult append(String appId, long batchId, List<DataFile> files) {
        return commit(appId, batchId, files, WriteMode.APPEND);
    }

    /** {@link #commit} with {@link WriteMode#OVERWRITE}. */
    public CommitResult overwrite(String appId, long batchId, List<DataFile> files) {
        return commit(appId, batchId, files, WriteMode.OVERWRITE);
    }

    /**
     * Commits a micro-batch's data files as one table version, unless the table already holds this
     * batch of this query. The files must exist, whole, before the call; none is written or moved.
     */
    public CommitResult commit(String appId, long batchId, List<DataFile> files, WriteMode mode) {
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
                                        engine, ENGINE_INFO, Operation.STREAMING_UPDATE)
                                .withTransactionId(engine, appId, batchId)
                                // Kernel re-checks an append against the winner and retries it
                                // itself; it
                                // would rebase an overwrite's removes blindly, so we re-plan those.
                                .withMaxRetries(mode == WriteMode.APPEND ? 20 : 0)
                                .build(engine);
            } catch (ConcurrentTransactionException e) {
                return skipped(appId, batchId);
            } catch (TableNotFoundException e) {
                latest(); // the error that names a missing or legacy table
                throw e;
            } catch (KernelException | IllegalStateException e) {
                if (shortListing(e) && attempt < SHORT_LISTING_ATTEMPTS) {
                    pauseAfterShortListing(attempt);
                    continue;
                }
                throw e;
            }
            List<Row> actions = new ArrayList<>();
            if (mode == WriteMode.OVERWRITE) {
                actions.addAll(removeAll(txn.getReadTableVersion()));
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
                if (shortListing(e) && attempt < SHORT_LISTING_ATTEMPTS) {
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

    /**
     * Kernel's errors when, after losing a race for a version, its listing of the winners came back
     * short (a log listing that misses commits that exist: see {@code FlinkFileIO.incomplete}). The
     * commit is whole again by a new transaction, which reads the log anew; its {@code txn} check
     * keeps it from writing a batch twice.
     */
    private static boolean shortListing(RuntimeException e) {
        String message = String.valueOf(e.getMessage());
        return message.contains("No winning commits found")
                || message.contains("should be greater than the previous commit attempt version")
                || message.contains("Gaps in Delta log commit files")
                || message.contains("versions are not contiguous")
                || message.contains("Missing delta file version")
                || message.contains("Missing checkpoint at version");
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
        long held = committedBatch(appId).orElse(-1);
        LOG.info(
                "Delta table {}: batch {} of {} skipped, the table holds batches up to {}",
                path,
                batchId,
                appId,
                held);
        return new CommitResult(false, appId, batchId, version(), held);
    }

    private long commitActions(Transaction txn, List<Row> actions) {
        CloseableIterable<Row> rows =
                CloseableIterable.inMemoryIterable(FlinkFileIO.iterator(actions.iterator()));
        TransactionCommitResult result = txn.commit(engine, rows);
        List<PostCommitHook> hooks = result.getPostCommitHooks();
        if (!hooks.isEmpty()) {
            postCommit.execute(
                    () -> {
                        for (PostCommitHook hook : hooks) {
                            try {
                                if (hook.getType()
                                        == PostCommitHook.PostCommitHookType.CHECKPOINT) {
                                    checkpointAt(result.getVersion());
                                } else {
                                    hook.threadSafeInvoke(engine);
                                }
                            } catch (IOException | RuntimeException e) {
                                // A checkpoint or checksum is an optimization: the commit stands
                                // without it.
                                LOG.warn(
                                        "Delta table {}: {} after version {} failed: {}",
                                        path,
                                        hook.getType(),
                                        result.getVersion(),
                                        e.toString());
                            }
                        }
                    });
        }
        return result.getVersion();
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
                            Optional.of(statistics(file, schema))));
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

    private List<Row> removeAll(long version) {
        return removeNamed(version, null);
    }

    /** Remove actions for the files of {@code version} named in {@code names} (null: all). */
    private List<Row> removeNamed(long version, Set<String> names) {
        if (version < 0) {
            return List.of();
        }
        List<Row> removes = new ArrayList<>();
        long now = System.currentTimeMillis();
        ScanImpl scan = (ScanImpl) snapshotAtVersion(version).getScanBuilder().build();
        try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine, true)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        AddFile add =
                                new AddFile(
                                        rows.next()
                                                .getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL));
                        String p = add.getPath();
                        if (names == null || names.contains(p.substring(p.lastIndexOf('/') + 1))) {
                            removes.add(
                                    SingleAction.createRemoveFileSingleAction(
                                            add.toRemoveFileRow(true, Optional.of(now))));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return removes;
    }

    /** A file's statistics as Kernel's, each value typed as its column. */
    private static DataFileStatistics statistics(DataFile file, StructType schema) {
        Map<Column, Literal> min = new HashMap<>();
        Map<Column, Literal> max = new HashMap<>();
        Map<Column, Long> nulls = new HashMap<>();
        for (StructField field : schema.fields()) {
            String name = field.getName();
            Literal lo = literal(field.getDataType(), file.minValues().get(name));
            Literal hi = literal(field.getDataType(), file.maxValues().get(name));
            if (lo != null && hi != null) {
                min.put(new Column(name), lo);
                max.put(new Column(name), hi);
            }
            Long n = file.nullCounts().get(name);
            if (n != null) {
                nulls.put(new Column(name), n);
            }
        }
        return new DataFileStatistics(file.numRecords(), min, max, nulls);
    }

    private static Literal literal(DataType type, Object value) {
        if (value == null) {
            return null;
        }
        if (type instanceof LongType && value instanceof Number) {
            return Literal.ofLong(((Number) value).longValue());
        } else if (type instanceof IntegerType && value instanceof Integer) {
            return Literal.ofInt((Integer) value);
        } else if (type instanceof DateType && value instanceof Integer) {
            return Literal.ofDate((Integer) value);
        } else if (type instanceof DoubleType && value instanceof Double) {
            return Literal.ofDouble((Double) value);
        } else if (type instanceof StringType && value instanceof String) {
            return Literal.ofString((String) value);
        }
        return null;
    }

    // ---------------------------------------------------------------- snapshots

    /** The table as of its current version. */
    public DeltaSnapshot snapshot() {
        return snapshotOf(latest());
    }

    /** The table as of {@code version} (time travel: {@code VERSION AS OF}). */
    public DeltaSnapshot snapshotAt(long version) {
        try {
            return snapshotOf(snapshotAtVersion(version));
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

    /**
     * The table as of the newest version committed at or before {@code time} ({@code TIMESTAMP AS
     * OF}).
     */
    public DeltaSnapshot snapshotAsOf(Instant time) {
        latest();
        try {
            return snapshotOf(table.getSnapshotAsOfTimestamp(engine, time.toEpochMilli()));
        } catch (KernelException e) {
            throw new IllegalArgumentException(
                    "Delta table " + path + " has no version as of " + time + ": " + e.getMessage(),
                    e);
        }
    }

    private DeltaSnapshot snapshotOf(Snapshot snapshot) {
        List<DataFile> files = new ArrayList<>();
        ScanImpl scan = (ScanImpl) snapshot.getScanBuilder().build();
        try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine, true)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        Row scanRow = rows.next();
                        io.delta.kernel.utils.FileStatus status =
                                InternalScanFileUtils.getAddFileStatus(scanRow);
                        AddFile add =
                                new AddFile(
                                        scanRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL));
                        files.add(
                                DataFile.of(
                                        status.getPath(),
                                        status.getSize(),
                                        status.getModificationTime(),
                                        add.getNumRecords().orElse(-1L)));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new DeltaSnapshot(
                path,
                snapshot.getVersion(),
                Instant.ofEpochMilli(snapshot.getTimestamp(engine)),
                DeltaSchema.toFlink(snapshot.getSchema()),
                ((SnapshotImpl) snapshot).getMetadata().getConfiguration(),
                files);
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
    private Snapshot snapshotAtVersion(long version) {
        Snapshot seen = lastLatest;
        if (seen != null && seen.getVersion() == version) {
            return seen; // a version's snapshot never changes: no second listing of the log
        }
        Snapshot latest = latest();
        return latest.getVersion() == version
                ? latest
                : table.getSnapshotAsOfVersion(engine, version);
    }

    private Snapshot latest() {
        try {
            Snapshot latest = table.getLatestSnapshot(engine);
            lastLatest = latest;
            return latest;
        } catch (TableNotFoundException e) {
            refuseLegacy();
            throw new IllegalArgumentException(
                    "no Delta table at "
                            + path
                            + " (no _delta_log): run the query that writes it first",
                    e);
        }
    }

    private void refuseLegacy() {
        if (fileExists(new Path(path, LEGACY_METADATA))) {
            throw new IllegalStateException(LegacyTables.refusal(path));
        }
    }

    // ---------------------------------------------------------------- reading versions

    /**
     * The files added by versions {@code from} to {@code to} (both inclusive), in log order, read
     * from those versions' log entries only: neither the table's folder nor its log is listed.
     *
     * @throws IllegalStateException if a version removes data files (an overwrite or a delete): a
     *     stream of a table reads appends only, as Spark's DeltaSource without {@code
     *     skipChangeCommits}
     */
    public List<AddedFile> filesAdded(long from, long to) {
        List<AddedFile> files = new ArrayList<>();
        for (long v = from; v <= to; v++) {
            files.addAll(appendedBy(v));
        }
        return files;
    }

    /**
     * The names of the data files that versions {@code from} to {@code to} (both inclusive) added,
     * whether or not a later version removed them, read from those versions' log entries only.
     *
     * @throws IllegalArgumentException if a version's log entry is not there (not committed yet, or
     *     cleaned up after a log checkpoint)
     */
    public Set<String> namesAdded(long from, long to) {
        Set<String> names = new HashSet<>();
        for (long v = from; v <= to; v++) {
            for (AddedFile f : commit(v).added) {
                names.add(f.file().name());
            }
        }
        return names;
    }

    /**
     * The next micro-batch of a stream reading this table: the files added from {@code start} on,
     * up to the table's current version: files while the batch holds fewer than {@code maxFiles}
     * files and fewer than {@code maxBytes} bytes (Delta's {@code maxFilesPerTrigger} and {@code
     * maxBytesPerTrigger}: the file that reaches the byte limit is taken, and a batch always takes
     * at least one file). Use {@code Long.MAX_VALUE} for no limit.
     */
    public SourceBatch nextBatch(DeltaOffset start, long maxFiles, long maxBytes) {
        return nextBatch(start, latestVersionFrom(start.version() - 1), maxFiles, maxBytes);
    }

    /**
     * How far {@link #latestVersionFrom} looks for log entries one by one before it asks Kernel.
     */
    private static final int PROBES = 64;

    /**
     * The table's current version, found from a version known to be committed by looking for the
     * next log entries by name (one status call each, the way a stream that keeps up sees one or
     * two new versions), or, past {@value #PROBES} of them, by Kernel's snapshot (a listing of the
     * log from its last checkpoint). Either way its cost does not grow with the table's history.
     */
    public long latestVersionFrom(long known) {
        if (known < 0) {
            return version();
        }
        for (long v = known; v < known + PROBES; v++) {
            if (!fileExists(logEntry(v + 1))) {
                if (v == known && !fileExists(logEntry(known))) {
                    return version(); // not committed after all: ask the log
                }
                return v;
            }
        }
        return version();
    }

    private Path logEntry(long version) {
        return new Path(path + "/_delta_log/" + String.format("%020d.json", version));
    }

    /** {@link #nextBatch(DeltaOffset, long, long)} up to {@code lastVersion} (a planned end). */
    public SourceBatch nextBatch(
            DeltaOffset start, long lastVersion, long maxFiles, long maxBytes) {
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

    /**
     * The table's history, newest first, read from the log entries of its last {@code limit}
     * versions ({@code DESCRIBE HISTORY ... LIMIT n}).
     */
    public List<HistoryEntry> history(int limit) {
        long last = version();
        List<HistoryEntry> entries = new ArrayList<>();
        for (long v = last; v >= 0 && entries.size() < limit; v--) {
            Commit c = commit(v);
            entries.add(
                    new HistoryEntry(
                            v,
                            c.timestamp,
                            c.operation,
                            c.appId,
                            c.batchId,
                            c.added.size(),
                            c.added.stream()
                                    .mapToLong(f -> Math.max(0, f.file().numRecords()))
                                    .sum(),
                            c.removed.size()));
        }
        return entries;
    }

    /** One log entry, as this class reads it. */
    private static final class Commit {
        final List<AddedFile> added = new ArrayList<>();
        final List<String> removed = new ArrayList<>();
        final List<Long> removedAt = new ArrayList<>();
        Instant timestamp;
        String operation;
        String appId;
        long batchId = -1;
    }

    private Commit commit(long version) {
        Path file = logEntry(version);
        Commit commit = new Commit();
        long modified;
        try {
            modified = file.getFileSystem().getFileStatus(file).getModificationTime();
        } catch (FileNotFoundException e) {
            throw new IllegalArgumentException(
                    "Delta table "
                            + path
                            + " has no log entry for version "
                            + version
                            + " ("
                            + file
                            + "): the version is not committed yet, or its entry was cleaned up",
                    e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        long index = 0;
        try (CloseableIterator<ColumnarBatch> batches =
                engine.getJsonHandler()
                        .readJsonFiles(
                                FlinkFileIO.iterator(
                                        List.of(
                                                        io.delta.kernel.utils.FileStatus.of(
                                                                file.toString(), 0, modified))
                                                .iterator()),
                                COMMIT_SCHEMA,
                                Optional.empty())) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        Row row = rows.next();
                        if (!row.isNullAt(ADD)) {
                            Row add = row.getStruct(ADD);
                            commit.added.add(
                                    new AddedFile(
                                            version,
                                            index++,
                                            DataFile.of(
                                                    absolute(add.getString(0)),
                                                    add.getLong(1),
                                                    add.getLong(2),
                                                    add.isNullAt(4)
                                                            ? -1
                                                            : numRecords(add.getString(4)))));
                        } else if (!row.isNullAt(REMOVE)) {
                            Row remove = row.getStruct(REMOVE);
                            if (remove.isNullAt(2) || remove.getBoolean(2)) {
                                commit.removed.add(absolute(remove.getString(0)));
                                commit.removedAt.add(
                                        remove.isNullAt(1) ? modified : remove.getLong(1));
                            }
                        } else if (!row.isNullAt(TXN)) {
                            commit.appId = row.getStruct(TXN).getString(0);
                            commit.batchId = row.getStruct(TXN).getLong(1);
                        } else if (!row.isNullAt(COMMIT_INFO)) {
                            Row info = row.getStruct(COMMIT_INFO);
                            commit.operation = info.isNullAt(2) ? null : info.getString(2);
                            // The commit's time as time travel reads it (Delta's history): its
                            // in-commit timestamp if the table has them, else the log entry's
                            // modification time (commitInfo.timestamp is the writer's clock
                            // before the commit, and --timestamp of it would find the version
                            // before).
                            long ts = !info.isNullAt(1) ? info.getLong(1) : modified;
                            commit.timestamp = Instant.ofEpochMilli(ts);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (commit.timestamp == null) {
            commit.timestamp = Instant.ofEpochMilli(modified);
        }
        return commit;
    }

    /** The added files of a version a stream reads; refuses versions that remove data. */
    private List<AddedFile> appendedBy(long version) {
        Commit c = commit(version);
        if (!c.removed.isEmpty()) {
            throw new IllegalStateException(
                    "Delta table "
                            + path
                            + " version "
                            + version
                            + " removes "
                            + c.removed.size()
                            + " data file(s) ("
                            + c.operation
                            + "): a stream reads tables that are only appended to. Read its"
                            + " snapshot instead, or restart the stream from a later version.");
        }
        return c.added;
    }

    private static long numRecords(String stats) {
        try {
            JsonNode n = JSON.readTree(stats).get("numRecords");
            return n == null ? -1 : n.asLong();
        } catch (IOException e) {
            return -1;
        }
    }

    private String absolute(String logPath) {
        URI uri = URI.create(logPath);
        return uri.isAbsolute() ? logPath : new Path(new Path(path), uri.getPath()).toString();
    }

    private String qualify(String file) {
        Path p = new Path(file);
        try {
            return p.makeQualified(p.getFileSystem()).toString();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resolve " + file + ": " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- vacuum and checkpoints

    /**
     * Deletes the data files in the table's folder that the current version does not reference,
     * that no version of the last {@code retention} removed, and that were last modified before
     * {@code retention} ago: Delta's {@code VACUUM}. A retention shorter than the table's {@code
     * delta.deletedFileRetentionDuration} (7 days by default) is refused unless {@code force}, as
     * Delta refuses it: readers of older versions, and writers whose staged files are not committed
     * yet, would lose files. Files and folders whose names start with {@code _} or {@code .} are
     * never touched.
     */
    public VacuumResult vacuum(Duration retention, boolean force, boolean dryRun) {
        Duration minimum = DEFAULT_RETENTION;
        String configured = properties().get("delta.deletedFileRetentionDuration");
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
                            + " and writers with staged, uncommitted files could lose them. Use a"
                            + " longer retention, or force it (--force) if no reader or writer is"
                            + " active.");
        }
        long cutoff = System.currentTimeMillis() - retention.toMillis();
        Set<String> keep = new HashSet<>();
        for (DataFile f : snapshot().files()) {
            keep.add(f.path());
        }
        for (long v = version(); v >= 0; v--) {
            Commit c = commit(v);
            for (int i = 0; i < c.removed.size(); i++) {
                if (c.removedAt.get(i) >= cutoff) {
                    keep.add(c.removed.get(i));
                }
            }
            if (c.timestamp.toEpochMilli() < cutoff) {
                break; // older entries only hold tombstones past the retention
            }
        }
        List<String> deleted = new ArrayList<>();
        long bytes = 0;
        try {
            Path root = new Path(path);
            FileSystem fs = root.getFileSystem();
            List<FileStatus> candidates = new ArrayList<>();
            listData(fs, root, candidates);
            for (FileStatus f : candidates) {
                String p = f.getPath().makeQualified(fs).toString();
                if (!keep.contains(p) && f.getModificationTime() < cutoff) {
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
        return new VacuumResult(deleted, bytes, dryRun);
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

    /**
     * Writes a checkpoint of the log at the current version (commits make one every interval by
     * themselves).
     */
    public void checkpoint() {
        try {
            checkpointAt(version());
        } catch (io.delta.kernel.exceptions.CheckpointAlreadyExistsException e) {
            // already there
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot checkpoint Delta table " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes the checkpoint at {@code version} from the latest snapshot while that is the version
     * (Kernel's own checkpoint hook takes it by time travel, which lists the whole log: see {@link
     * #snapshotAtVersion}).
     */
    private void checkpointAt(long version) throws IOException {
        Table fresh = Table.forPath(engine, path);
        Snapshot latest = fresh.getLatestSnapshot(engine);
        Snapshot snapshot =
                latest.getVersion() == version
                        ? latest
                        : fresh.getSnapshotAsOfVersion(engine, version);
        io.delta.kernel.internal.checkpoints.Checkpointer.checkpoint(
                engine,
                ((io.delta.kernel.internal.TableImpl) fresh).getClock(),
                (SnapshotImpl) snapshot);
    }

    private static boolean fileExists(Path p) {
        try {
            return p.getFileSystem().exists(p);
        } catch (IOException e) {
            return false;
        }
    }

    private static String stripSlash(String p) {
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }
}
