package org.flinkss.runtime.table.delta;

import org.apache.flink.table.types.logical.RowType;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Predicate;

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
 * <p>Shaped like Kernel's own seams, this class is a facade over the package's machinery: {@link
 * SnapshotReader} (snapshots: latest, by version, by time), {@link VersionReader} (log entries of a
 * range of versions: a stream's batches, history), {@link TransactionWriter} (create, replace,
 * commits) and {@link TableMaintenance} (vacuum, log checkpoints); whatever Kernel offers only in
 * its internals goes through {@link KernelInternals}.
 *
 * <p>Not thread-safe for one instance; instances over the same path may be used from any thread or
 * process.
 */
public final class DeltaTable {

    /** The {@code engineInfo} of every commit this project makes. */
    public static final String ENGINE_INFO = "flinkss Delta-Kernel/4.0.0";

    /** Delta's default for {@code delta.deletedFileRetentionDuration}: what vacuum keeps. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

    private final String path;
    private final DeltaStorage storage;
    private final Engine engine;

    private final SnapshotReader snapshots;
    private final VersionReader versions;
    private final TableMaintenance maintenance;
    private final TransactionWriter writer;
    private final FeedLog feed;

    /** What every commit of this instance adds to its commit info ({@link #recordInCommits}). */
    private Completeness recorded = Completeness.NONE;

    private DeltaTable(String path, DeltaStorage storage, Executor postCommit) {
        this.storage = storage;
        this.engine = storage.engine();
        Table table = Table.forPath(engine, path);
        this.path = stripSlash(table.getPath(engine));
        this.snapshots = new SnapshotReader(this.path, engine, table);
        this.versions = new VersionReader(this.path, engine, snapshots);
        this.maintenance = new TableMaintenance(this.path, engine, snapshots, versions);
        // Commits go through an engine that adds the recorded completeness to their commit info,
        // whichever writer (Kernel's transactions, FeedLog's own entries) writes the log entry.
        Engine committing =
                new OperationEngine(
                        engine, row -> KernelInternals.withParameters(row, recorded.parameters()));
        this.writer =
                new TransactionWriter(
                        this.path, committing, table, snapshots, maintenance, postCommit);
        this.feed = new FeedLog(this.path, committing, snapshots);
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
     * This table with the work Kernel asks for after a commit (log checkpoints, checksums) run by
     * {@code executor} instead of inside {@link #commit}: a checkpoint of a table of 10,000 files
     * took seconds. One running while the next commit is made is safe (a new file, if absent).
     */
    public DeltaTable withPostCommitExecutor(Executor executor) {
        return new DeltaTable(path, storage, executor);
    }

    /**
     * Makes every later commit of this instance record {@code completeness} in its commit info
     * ({@code operationParameters}), until called again: a table's committer sets its batch's
     * before committing it. {@link Completeness#NONE} records nothing.
     */
    public void recordInCommits(Completeness completeness) {
        this.recorded = Objects.requireNonNull(completeness, "completeness");
    }

    /**
     * What the table's newest batch commit records of its event time's completeness ({@link
     * #completenessAt} of the current version).
     */
    public Completeness completeness() {
        return completenessAt(snapshots.version());
    }

    /**
     * What the newest commit of a micro-batch (one with a {@code txn} action) at or before {@code
     * version} records of its event time's completeness: a commit of no batch (a recompute's
     * rewrite, a change of properties) changes no window's completeness and is passed over. {@link
     * Completeness#NONE} for a table whose writer records none (bronze, or a table written before
     * commits recorded it).
     */
    public Completeness completenessAt(long version) {
        return versions.completenessAt(version);
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
        return snapshots.latestIfExists().isPresent();
    }

    /**
     * Whether the folder holds a table of the project's earlier format ({@code _table.json}, no
     * log).
     */
    public boolean isLegacy() {
        return !exists() && LegacyTables.hasMetadata(path);
    }

    // ---------------------------------------------------------------- create and describe

    /**
     * Creates the table (version 0, no data) with these columns and properties. A table that exists
     * with the same columns is left as it is; one with other columns is refused.
     *
     * @return the table's version after the call
     */
    public long create(RowType rowType, Map<String, String> properties) {
        if (ChangeDataFeed.enabledIn(properties) && !exists()) {
            // Kernel 4.0.0 refuses to create a table with the feed: written by FeedLog. One that
            // another writer created first is compared by the writer below.
            if (feed.create(rowType, properties)) {
                return 0;
            }
        }
        return writer.create(rowType, properties);
    }

    /** Version 0: the table with its columns, properties and these files (a conversion's). */
    long createWith(RowType rowType, Map<String, String> properties, List<DataFile> files) {
        return writer.createWith(rowType, properties, files);
    }

    /** A table's version, columns and properties, read from one snapshot of its log. */
    public record Head(long version, RowType rowType, Map<String, String> properties) {}

    /** {@link #version}, {@link #rowType}, {@link #properties} from one reading; empty: none. */
    public Optional<Head> head() {
        return snapshots
                .latestIfExists()
                .map(
                        s ->
                                new Head(
                                        s.getVersion(),
                                        DeltaSchema.toFlink(s.getSchema()),
                                        KernelInternals.properties(s)));
    }

    /** The table's columns as of its current version. */
    public RowType rowType() {
        return DeltaSchema.toFlink(snapshots.latest().getSchema());
    }

    /** The table's properties as of its current version. */
    public Map<String, String> properties() {
        return KernelInternals.properties(snapshots.latest());
    }

    /** The table's current version. */
    public long version() {
        return snapshots.version();
    }

    /** The newest batch id the table holds for a query ({@code txn} action), if any. */
    public OptionalLong committedBatch(String appId) {
        Snapshot latest = snapshots.latest();
        return KernelInternals.latestTransactionVersion(latest, engine, appId);
    }

    /**
     * Replaces the table with an empty one of these columns and properties, in one commit (Delta's
     * {@code REPLACE TABLE}): every data file is removed, the schema and the properties are the
     * given ones. Older versions stay readable until a vacuum.
     *
     * @return the new version
     */
    public long replace(RowType rowType, Map<String, String> properties) {
        if (ChangeDataFeed.enabledIn(properties) || feed.writes()) {
            return feed.replace(rowType, properties);
        }
        return writer.replace(rowType, properties);
    }

    /**
     * Sets table properties in a commit of their own ({@code Manual Update}); no data changes.
     *
     * @return the new version
     */
    public long setProperties(Map<String, String> properties) {
        if (feed.writes()) {
            return feed.setProperties(properties);
        }
        return writer.setProperties(properties);
    }

    /**
     * Removes the data files whose names are in {@code removed} and adds {@code added}, in one
     * commit ({@code WRITE}): rows replaced outside any stream (a recompute, a static table landed
     * again). Readers see the old files or the new ones, never both or neither.
     *
     * @return the new version
     */
    public long rewrite(Set<String> removed, List<DataFile> added) {
        if (feed.writes()) {
            return feed.rewrite(removed, added);
        }
        return writer.rewrite(removed, added);
    }

    /**
     * The names of the data files that versions committed at or after {@code since} removed, read
     * from their log entries, newest first, stopping at the first older entry: what a writer checks
     * before deleting files of its own that the current version does not reference (they may be
     * superseded files that readers of older versions still need).
     */
    public Set<String> removedSince(Instant since) {
        return versions.removedSince(since);
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
        if (feed.writes()) {
            return feed.commit(appId, batchId, files, mode);
        }
        return writer.commit(appId, batchId, files, mode);
    }

    /**
     * Adds nullable columns after the existing ones, in a commit of its own ({@code Manual Update})
     * whose {@code metaData} action holds the new schema; no data changes, and the rows already in
     * the table read the new columns as null.
     *
     * @param grown the table's columns followed by the new ones ({@link SchemaGrowth#isGrowthOf})
     * @return the new version
     * @throws IllegalArgumentException if {@code grown} changes anything else
     */
    public long addColumns(RowType grown) {
        return writer.addColumns(grown);
    }

    /**
     * {@link #append} of a micro-batch whose data files hold columns the table does not have yet:
     * one version with the {@code metaData} action of the grown schema, the files' {@code add}
     * actions and the batch's {@code txn} action (Auto Loader's {@code addNewColumns}, Spark's
     * {@code mergeSchema}). Rows committed before read the new columns as null. Skipped, as {@link
     * #commit}, when the table already holds the batch.
     *
     * @param grown the table's columns followed by the new ones, nullable ({@link
     *     SchemaGrowth#isGrowthOf})
     * @throws IllegalArgumentException if {@code grown} changes anything else
     */
    public CommitResult appendWithSchema(
            String appId, long batchId, List<DataFile> files, RowType grown) {
        return writer.appendWithSchema(appId, batchId, files, grown);
    }

    /**
     * Commits a micro-batch that rewrote part of the table, planned on version {@code
     * plannedVersion}: the data files named in {@code removed} are removed and {@code added} added,
     * in one version carrying the batch's {@code txn} action and {@code info} (its operation, e.g.
     * {@code MERGE}, with Delta's metrics) in its {@code commitInfo}. Skipped, as {@link #commit},
     * when the table already holds the batch.
     *
     * @throws TableChangedException if the table is no longer at {@code plannedVersion}: nothing
     *     was committed, plan again
     */
    public CommitResult merge(
            String appId,
            long batchId,
            long plannedVersion,
            Set<String> removed,
            List<DataFile> added,
            OperationInfo info) {
        return merge(appId, batchId, plannedVersion, removed, added, List.of(), info);
    }

    /**
     * {@link #merge} with the version's change data files ({@link ChangeDataFeed#FOLDER}), on a
     * table with the change data feed; on one without, {@code changeFiles} must be empty.
     */
    public CommitResult merge(
            String appId,
            long batchId,
            long plannedVersion,
            Set<String> removed,
            List<DataFile> added,
            List<DataFile> changeFiles,
            OperationInfo info) {
        if (feed.writes()) {
            return feed.merge(appId, batchId, plannedVersion, removed, added, changeFiles, info);
        }
        if (!changeFiles.isEmpty()) {
            throw new IllegalArgumentException(
                    "Delta table " + path + " has no change data feed: no change data files");
        }
        return writer.merge(appId, batchId, plannedVersion, removed, added, info);
    }

    /** The table's {@code CHECK} and {@code NOT NULL} constraints, to read and change. */
    public DeltaConstraints constraints() {
        return new DeltaConstraints(path, snapshots, feed);
    }

    /** Whether the table has its change data feed on ({@link ChangeDataFeed#PROPERTY}). */
    public boolean hasChangeFeed() {
        return feed.enabled();
    }

    /**
     * The change data feed of versions {@code from} to {@code to} (both included), in version
     * order, as Spark's {@code table_changes} reads it.
     *
     * @throws IllegalStateException if the table has no feed, naming it and what to do
     */
    public List<FeedRow> changes(long from, long to) {
        if (!feed.enabled()) {
            throw new IllegalStateException(
                    "Delta table "
                            + path
                            + " has no change data feed ("
                            + ChangeDataFeed.PROPERTY
                            + " is not set): it records changes only when created with it. A"
                            + " table of a MERGE or complete-mode query gets it when its query"
                            + " is reset (reset <query>), which empties it.");
        }
        long last = snapshots.version();
        if (from < 0 || to < from || to > last) {
            throw new IllegalArgumentException(
                    "Delta table "
                            + path
                            + ": versions "
                            + from
                            + " to "
                            + to
                            + " are not a range of its versions (0 to "
                            + last
                            + ")");
        }
        return new ChangeFeedReader(path, versions).read(rowType(), from, to);
    }

    // ---------------------------------------------------------------- snapshots

    /** The table as of its current version. */
    public DeltaSnapshot snapshot() {
        return snapshots.current();
    }

    /**
     * The table as of its current version, each data file with the statistics its {@code add}
     * action records (the minimum, maximum and null count of each column that has them): what a
     * writer reads to find the files that may hold a key.
     */
    public DeltaSnapshot snapshotWithStatistics() {
        return snapshots.currentWithStatistics();
    }

    /** The table as of {@code version} (time travel: {@code VERSION AS OF}). */
    public DeltaSnapshot snapshotAt(long version) {
        return snapshots.at(version);
    }

    /**
     * The table as of the newest version committed at or before {@code time} ({@code TIMESTAMP AS
     * OF}).
     */
    public DeltaSnapshot snapshotAsOf(Instant time) {
        return snapshots.asOf(time);
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
        return versions.filesAdded(from, to);
    }

    /**
     * The names of the data files that versions {@code from} to {@code to} (both inclusive) added,
     * whether or not a later version removed them, read from those versions' log entries only.
     *
     * @throws IllegalArgumentException if a version's log entry is not there (not committed yet, or
     *     cleaned up after a log checkpoint)
     */
    public Set<String> namesAdded(long from, long to) {
        return versions.namesAdded(from, to);
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
     * The table's current version, found from a version known to be committed by looking for the
     * next log entries by name (one status call each, the way a stream that keeps up sees one or
     * two new versions), or, past 64 of them, by Kernel's snapshot (a listing of the log from its
     * last checkpoint). Either way its cost does not grow with the table's history.
     */
    public long latestVersionFrom(long known) {
        return versions.latestVersionFrom(known);
    }

    /** {@link #nextBatch(DeltaOffset, long, long)} up to {@code lastVersion} (a planned end). */
    public SourceBatch nextBatch(
            DeltaOffset start, long lastVersion, long maxFiles, long maxBytes) {
        return versions.nextBatch(start, lastVersion, maxFiles, maxBytes);
    }

    /**
     * The table's history, newest first, read from the log entries of its last {@code limit}
     * versions ({@code DESCRIBE HISTORY ... LIMIT n}).
     */
    public List<HistoryEntry> history(int limit) {
        return versions.history(limit);
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
        return maintenance.vacuum(retention, force, dryRun, name -> false);
    }

    /**
     * {@link #vacuum(Duration, boolean, boolean)} that keeps, whatever the retention and {@code
     * force}, the unreferenced data files {@code writersFile} accepts by name that no version ever
     * removed: files the table's writer staged for a batch it has not committed yet (a live run's,
     * or a killed run's that its next run commits from its checkpoint). Counted in {@link
     * VacuumResult#keptStaged}.
     */
    public VacuumResult vacuum(
            Duration retention, boolean force, boolean dryRun, Predicate<String> writersFile) {
        return maintenance.vacuum(retention, force, dryRun, writersFile);
    }

    /** Writes a checkpoint of the log at the current version (commits make one every interval). */
    public void checkpoint() {
        maintenance.checkpoint();
    }

    private static String stripSlash(String p) {
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }
}
