package org.flinkss.runtime.table.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionBuilder;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.InvalidTableException;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.ScanImpl;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.TableImpl;
import io.delta.kernel.internal.TransactionImpl;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.CommitInfo;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.actions.Format;
import io.delta.kernel.internal.actions.Metadata;
import io.delta.kernel.internal.actions.Protocol;
import io.delta.kernel.internal.actions.SetTransaction;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.checkpoints.Checkpointer;
import io.delta.kernel.internal.data.GenericRow;
import io.delta.kernel.internal.deletionvectors.DeletionVectorUtils;
import io.delta.kernel.internal.tablefeatures.TableFeature;
import io.delta.kernel.internal.tablefeatures.TableFeatures;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * The one door to what Delta Kernel 4.0.0 does not offer in its public API: every use of {@code
 * io.delta.kernel.internal} and every reading of Kernel's error texts in this project is here, so
 * that a Kernel upgrade touches this file, and {@code KernelInternalsTest}, which runs each method
 * against a real table, says what changed. Nothing else may import Kernel's internals ({@code
 * KernelInternalsOnlyHereTest}).
 *
 * <p>Why each is needed, as of Kernel 4.0.0:
 *
 * <ul>
 *   <li>{@link #properties}, {@link #latestTransactionVersion}: {@code Snapshot} has no public
 *       getter for the table's configuration nor for a {@code txn} action's version.
 *   <li>{@link #replaceTableTransaction}: {@code REPLACE TABLE} is on {@code TableImpl} only.
 *   <li>{@link #dataFiles}, {@link #removeActions}, {@link #fileStatus}: a scan file's row is
 *       Kernel's internal {@code AddFile}; a scan with statistics (for the row counts) and remove
 *       actions for an overwrite have no public API.
 *   <li>{@link #writeCheckpoint}: {@code Table.checkpoint(engine, version)} is public, but it loads
 *       the version by time travel, which in Kernel 4.0.0 lists the whole log of a table with
 *       checksum files; the checkpointer takes the snapshot this project already holds.
 *   <li>{@link #withOperation}: a transaction's {@code commitInfo} names one of Kernel's own few
 *       operations ({@code MERGE} is not one) and carries no metrics; {@code CommitInfo} is
 *       internal. {@link #withParameters} adds the project's own parameters (a batch's {@link
 *       Completeness}) to whatever commit info a commit has, for the same reason.
 *   <li>{@link #protocolAction}, {@link #metadataAction}, {@link #addAction}, {@link #cdcAction},
 *       {@link #txnAction}, {@link #commitInfoAction}: Kernel 4.0.0 refuses every transaction on a
 *       table with {@code delta.enableChangeDataFeed} ({@code ChangeDataFeedFeature} has no write
 *       support in it), so {@link FeedLog} writes those tables' log entries itself, of the action
 *       rows Kernel's own commits are made of ({@code cdc} has no builder in Kernel).
 *   <li>{@link #withSchema}: Kernel's builder refuses a schema for a table that exists ("Evolution
 *       is not currently supported", without column mapping); adding nullable columns at the end,
 *       which Delta allows without column mapping, is done by giving the transaction the table's
 *       metadata with the grown schema, which Kernel then writes as the commit's {@code metaData}.
 *   <li>{@link #isShortListing}: Kernel's public exception for a log that misses entries is {@link
 *       InvalidTableException}; three more of its checks throw plain {@code IllegalStateException}
 *       / {@code IllegalArgumentException}, known only by their texts.
 * </ul>
 */
final class KernelInternals {

    /**
     * Kernel 4.0.0's texts of the checks that fail when a conflict's listing of the winning commits
     * came back short, thrown as plain {@code IllegalStateException} ({@code ConflictChecker}'s
     * {@code checkState}) or {@code IllegalArgumentException} ({@code TransactionImpl}'s {@code
     * checkArgument}): no exception type tells them apart, so their messages are matched.
     */
    private static final List<String> SHORT_LISTING_TEXTS =
            List.of(
                    "No winning commits found",
                    "Gaps in Delta log commit files",
                    "should be greater than the previous commit attempt version");

    private KernelInternals() {}

    /** The table's properties ({@code delta.*} and the project's own) as of a snapshot. */
    static Map<String, String> properties(Snapshot snapshot) {
        return ((SnapshotImpl) snapshot).getMetadata().getConfiguration();
    }

    /** The version of the newest {@code txn} action of {@code appId} as of a snapshot, if any. */
    static OptionalLong latestTransactionVersion(Snapshot snapshot, Engine engine, String appId) {
        Optional<Long> v = ((SnapshotImpl) snapshot).getLatestTransactionVersion(engine, appId);
        return v.map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    /**
     * A builder of a transaction that replaces the table (Delta's {@code REPLACE TABLE}): the
     * schema and properties given to it, every data file removed.
     */
    static TransactionBuilder replaceTableTransaction(
            Table table, Engine engine, String engineInfo) {
        return ((TableImpl) table).createReplaceTableTransactionBuilder(engine, engineInfo);
    }

    /**
     * The data files of a snapshot, with their row counts from the log's statistics ({@code -1}
     * where a file has none), in Kernel's scan order.
     */
    static List<DataFile> dataFiles(
            Snapshot snapshot, Engine engine, Map<String, DeletedRows.Vector> deleted) {
        return dataFiles(snapshot, engine, false, deleted);
    }

    /**
     * {@link #dataFiles} with each file's minimum, maximum and null count per column, parsed from
     * its {@code add} action's statistics (numbers as Long or Double, strings as String); a file
     * without statistics has none.
     */
    static List<DataFile> dataFilesWithStatistics(
            Snapshot snapshot, Engine engine, Map<String, DeletedRows.Vector> deleted) {
        return dataFiles(snapshot, engine, true, deleted);
    }

    /**
     * @param deleted filled with each file's deletion vector, by the file's path, where its {@code
     *     add} action has one
     */
    private static List<DataFile> dataFiles(
            Snapshot snapshot,
            Engine engine,
            boolean statistics,
            Map<String, DeletedRows.Vector> deleted) {
        String tablePath = ((SnapshotImpl) snapshot).getDataPath().toString();
        List<DataFile> files = new ArrayList<>();
        forEachAddFile(
                snapshot,
                engine,
                (scanRow, add) -> {
                    FileStatus status = InternalScanFileUtils.getAddFileStatus(scanRow);
                    add.getDeletionVector()
                            .ifPresent(
                                    dv ->
                                            deleted.put(
                                                    status.getPath(),
                                                    deletionVector(engine, tablePath, dv)));
                    files.add(
                            statistics
                                    ? AddStatistics.parse(
                                            status.getPath(),
                                            status.getSize(),
                                            status.getModificationTime(),
                                            add.getStatsJson().orElse(null))
                                    : DataFile.of(
                                            status.getPath(),
                                            status.getSize(),
                                            status.getModificationTime(),
                                            add.getNumRecords().orElse(-1L)));
                });
        return files;
    }

    /**
     * Remove actions ({@code dataChange} true, deleted at {@code deletionTimestamp}) for the files
     * of a snapshot whose names (the last part of the path) {@code byName} accepts.
     */
    static List<Row> removeActions(
            Snapshot snapshot, Engine engine, Predicate<String> byName, long deletionTimestamp) {
        List<Row> removes = new ArrayList<>();
        forEachAddFile(
                snapshot,
                engine,
                (scanRow, add) -> {
                    String p = add.getPath();
                    if (byName.test(p.substring(p.lastIndexOf('/') + 1))) {
                        removes.add(
                                SingleAction.createRemoveFileSingleAction(
                                        add.toRemoveFileRow(true, Optional.of(deletionTimestamp))));
                    }
                });
        return removes;
    }

    /**
     * A log action row as Kernel made it for a commit, with its {@code commitInfo} (if it is one)
     * naming {@code info}'s operation, parameters and metrics; {@code isBlindAppend} false, since
     * such an operation read the table. Any other row is returned as it is.
     */
    static Row withOperation(Row action, OperationInfo info) {
        int at = action.getSchema().indexOf("commitInfo");
        if (at < 0 || action.isNullAt(at)) {
            return action;
        }
        return commitInfoLike(
                action.getStruct(at), info.operation(), info.parameters(), false, info.metrics());
    }

    /**
     * A log action row as a commit writes it, with {@code extra} added to its {@code commitInfo}'s
     * {@code operationParameters} (every other field kept as it was); any other row, or any row
     * when {@code extra} is empty, is returned as it is.
     */
    static Row withParameters(Row action, Map<String, String> extra) {
        int at = action.getSchema().indexOf("commitInfo");
        if (extra.isEmpty() || at < 0 || action.isNullAt(at)) {
            return action;
        }
        Row info = action.getStruct(at);
        Map<String, String> parameters = new HashMap<>(stringMap(info, "operationParameters"));
        parameters.putAll(extra);
        int blind = info.getSchema().indexOf("isBlindAppend");
        return commitInfoLike(
                info,
                string(info, "operation"),
                parameters,
                blind >= 0 && !info.isNullAt(blind) && info.getBoolean(blind),
                stringMap(info, "operationMetrics"));
    }

    /**
     * A {@code commitInfo} action with {@code info}'s times, engine and transaction id, and these
     * operation, parameters, blind-append flag and metrics.
     */
    private static Row commitInfoLike(
            Row info,
            String operation,
            Map<String, String> parameters,
            boolean blind,
            Map<String, String> metrics) {
        StructType schema = info.getSchema();
        int ict = schema.indexOf("inCommitTimestamp");
        return SingleAction.createCommitInfoSingleAction(
                new CommitInfo(
                                ict < 0 || info.isNullAt(ict)
                                        ? Optional.empty()
                                        : Optional.of(info.getLong(ict)),
                                info.getLong(schema.indexOf("timestamp")),
                                string(info, "engineInfo"),
                                operation,
                                parameters,
                                blind,
                                string(info, "txnId"),
                                metrics)
                        .toRow());
    }

    private static String string(Row row, String field) {
        int at = row.getSchema().indexOf(field);
        return at < 0 || row.isNullAt(at) ? null : row.getString(at);
    }

    /** A map of strings field of a row (a commit info's parameters), empty when null or absent. */
    static Map<String, String> stringMap(Row row, String field) {
        int at = row.getSchema().indexOf(field);
        if (at < 0 || row.isNullAt(at)) {
            return Map.of();
        }
        return VectorUtils.toJavaMap(row.getMap(at));
    }

    /** A snapshot's protocol as its reader and writer versions. */
    static int[] protocolVersions(Snapshot snapshot) {
        Protocol p = ((SnapshotImpl) snapshot).getProtocol();
        return new int[] {p.getMinReaderVersion(), p.getMinWriterVersion()};
    }

    /**
     * The {@code protocol} action of a snapshot's protocol with Delta's {@code checkConstraints}
     * ({@code checks}) or {@code invariants} (NOT NULL columns) writer feature, as delta-spark
     * upgrades it: a legacy protocol goes to the lowest legacy writer version that has the feature
     * (3, or 2), one of table features gets it in its list; empty when it has the feature already.
     */
    static Optional<Row> protocolWith(Snapshot snapshot, boolean checks) {
        Protocol current = ((SnapshotImpl) snapshot).getProtocol();
        TableFeature feature =
                checks ? TableFeatures.CONSTRAINTS_W_FEATURE : TableFeatures.INVARIANTS_W_FEATURE;
        if (current.supportsFeature(feature)) {
            return Optional.empty();
        }
        Protocol upgraded;
        if (current.getMinWriterVersion() < 7) {
            upgraded =
                    new Protocol(
                            current.getMinReaderVersion(),
                            Math.max(current.getMinWriterVersion(), feature.minWriterVersion()));
        } else {
            Set<String> writerFeatures = new TreeSet<>(current.getWriterFeatures());
            writerFeatures.add(feature.featureName());
            upgraded =
                    new Protocol(
                            current.getMinReaderVersion(),
                            current.getMinWriterVersion(),
                            current.getReaderFeatures(),
                            writerFeatures);
        }
        return Optional.of(SingleAction.createProtocolSingleAction(upgraded.toRow()));
    }

    /** A {@code protocol} action with these legacy reader and writer versions. */
    static Row protocolAction(int minReaderVersion, int minWriterVersion) {
        return SingleAction.createProtocolSingleAction(
                new Protocol(minReaderVersion, minWriterVersion).toRow());
    }

    /**
     * A {@code metaData} action: a new table's (a new id, Parquet, no partition columns) when
     * {@code current} is null, else {@code current}'s with this schema and these properties
     * replacing its own.
     */
    static Row metadataAction(
            Snapshot current, StructType schema, Map<String, String> properties, long now) {
        Metadata metadata =
                current == null
                        ? new Metadata(
                                UUID.randomUUID().toString(),
                                Optional.empty(),
                                Optional.empty(),
                                new Format(),
                                schema.toJson(),
                                schema,
                                VectorUtils.buildArrayValue(List.of(), StringType.STRING),
                                Optional.of(now),
                                VectorUtils.stringStringMapValue(properties))
                        : ((SnapshotImpl) current)
                                .getMetadata()
                                .withNewSchema(schema)
                                .withReplacedConfiguration(properties);
        return SingleAction.createMetadataSingleAction(metadata.toRow());
    }

    /** An {@code add} action ({@code dataChange} true) for a file, relative to the table's root. */
    static Row addAction(StructType schema, String tablePath, DataFileStatus file) {
        return SingleAction.createAddFileSingleAction(
                AddFile.convertDataFileStatus(
                                schema, URI.create(tablePath), file, Map.of(), true, Map.of())
                        .toRow());
    }

    /** The {@code cdc} action's fields, as the protocol's "Change Data Files" names them. */
    private static final StructType CDC =
            new StructType()
                    .add("path", StringType.STRING, false)
                    .add(
                            "partitionValues",
                            new MapType(StringType.STRING, StringType.STRING, true),
                            false)
                    .add("size", LongType.LONG, false)
                    .add("dataChange", BooleanType.BOOLEAN, false);

    private static final StructType CDC_ACTION = new StructType().add("cdc", CDC);

    /**
     * A {@code cdc} action for a change data file ({@code dataChange} false, as the protocol
     * requires: the {@code add} and {@code remove} actions carry the data change).
     *
     * @param relativePath the file's path relative to the table's root ({@code _change_data/...})
     */
    static Row cdcAction(String relativePath, long size) {
        Map<Integer, Object> cdc = new HashMap<>();
        cdc.put(0, relativePath);
        cdc.put(1, VectorUtils.stringStringMapValue(Map.of()));
        cdc.put(2, size);
        cdc.put(3, false);
        return new GenericRow(CDC_ACTION, Map.of(0, new GenericRow(CDC, cdc)));
    }

    /** A {@code txn} action: {@code appId}'s batch {@code version} is in this commit. */
    static Row txnAction(String appId, long version, long now) {
        return SingleAction.createTxnSingleAction(
                new SetTransaction(appId, version, Optional.of(now)).toRow());
    }

    /** A {@code commitInfo} action for a commit this project writes itself. */
    static Row commitInfoAction(long now, String engineInfo, OperationInfo info, boolean blind) {
        return SingleAction.createCommitInfoSingleAction(
                new CommitInfo(
                                Optional.empty(),
                                now,
                                engineInfo,
                                info.operation(),
                                info.parameters(),
                                blind,
                                UUID.randomUUID().toString(),
                                info.metrics())
                        .toRow());
    }

    /**
     * Makes a transaction that Kernel built for an existing table commit {@code schema} as the
     * table's new schema: its {@code metaData} action (the table's metadata with the new schema,
     * every other field kept) is written with the transaction's other actions, in the same log
     * entry, and its write context and statistics follow the new schema. The caller checks that
     * {@code schema} only adds nullable columns at the end ({@code SchemaGrowth}).
     */
    static void withSchema(Transaction txn, StructType schema) {
        try {
            Field metadata = TransactionImpl.class.getDeclaredField("metadata");
            Field update = TransactionImpl.class.getDeclaredField("shouldUpdateMetadata");
            metadata.setAccessible(true);
            update.setAccessible(true);
            Metadata current = (Metadata) metadata.get(txn);
            metadata.set(txn, current.withNewSchema(schema));
            update.setBoolean(txn, true);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "Delta Kernel's transaction has no field this project sets to change a"
                            + " table's schema (a Kernel other than 4.0.0?): "
                            + e,
                    e);
        }
    }

    /**
     * A file's deletion vector: its cardinality from the log, the positions it holds read (from its
     * {@code .bin} file or inline in the log) when asked for.
     */
    private static DeletedRows.Vector deletionVector(
            Engine engine, String tablePath, DeletionVectorDescriptor dv) {
        return new DeletedRows.Vector(
                dv.getCardinality(),
                () -> DeletionVectorUtils.loadNewDvAndBitmap(engine, tablePath, dv)._2::contains);
    }

    /** The file a row of {@code Scan.getScanFiles} names, to read it with the Parquet handler. */
    static FileStatus fileStatus(Row scanFileRow) {
        return InternalScanFileUtils.getAddFileStatus(scanFileRow);
    }

    /**
     * Writes the checkpoint of the log at the snapshot's version, and {@code _last_checkpoint}.
     *
     * @throws io.delta.kernel.exceptions.CheckpointAlreadyExistsException if there is one
     */
    static void writeCheckpoint(Engine engine, Table table, Snapshot snapshot) throws IOException {
        Checkpointer.checkpoint(engine, ((TableImpl) table).getClock(), (SnapshotImpl) snapshot);
    }

    /**
     * Whether a failed snapshot read or commit is Kernel's report of a log listing that came back
     * short (a listing that misses entries that exist, see {@code FlinkFileIO.incomplete}): a new
     * attempt, which lists the log anew, may succeed. {@link InvalidTableException} is Kernel's
     * type for a log with a gap or a missing checkpoint ("versions are not contiguous", "Missing
     * delta file version", "Missing checkpoint at version", ...); the checks of a conflict's
     * winning commits have no type of their own and are known by their texts ({@link
     * #SHORT_LISTING_TEXTS}).
     */
    static boolean isShortListing(RuntimeException e) {
        if (e instanceof InvalidTableException) {
            return true;
        }
        if (!(e instanceof IllegalStateException || e instanceof IllegalArgumentException)) {
            return false;
        }
        String message = String.valueOf(e.getMessage());
        return SHORT_LISTING_TEXTS.stream().anyMatch(message::contains);
    }

    private static void forEachAddFile(
            Snapshot snapshot, Engine engine, BiConsumer<Row, AddFile> visitor) {
        ScanImpl scan = (ScanImpl) snapshot.getScanBuilder().build();
        try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine, true)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        Row scanRow = rows.next();
                        visitor.accept(
                                scanRow,
                                new AddFile(
                                        scanRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL)));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
