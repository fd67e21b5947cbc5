package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.TableChangedException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Upserts by key, as Delta's {@code MERGE INTO t USING batch s ON t.key = s.key WHEN MATCHED THEN
 * UPDATE SET * WHEN NOT MATCHED THEN INSERT *} copy-on-write: a micro-batch's rows ({@link
 * ChangeSetWriter}'s change sets, the last row of each key winning, in the batch's order) are
 * merged into the table in one Delta commit. The files that may hold a key of the batch are found
 * from their statistics (each key column's minimum and maximum), then from their key column; each
 * that holds one is rewritten with the matched rows replaced (a remove and an add), the others stay
 * untouched, and the batch's new keys go to one new file. The commit carries the batch's {@code
 * txn} (a replayed batch is skipped whole), operation {@code MERGE} and Delta's metrics ({@link
 * MergeMetrics}). On a table with a change data feed the commit also names the batch's change data
 * file ({@link ChangeFeedWriter}).
 *
 * <p>A row with a null in its key is a row of its own, inserted (a MERGE never matches a null key).
 * A row of kind {@code DELETE} deletes its key's row (update mode never sends one; a changelog
 * may). The key may be several columns: update mode merges windows by start, end and grouping key.
 *
 * <p>Files are written by the committer when the batch commits, named as the table's writer names
 * its staged files ({@link DataFileWriter#fileNamePrefix}): a commit cut short by a kill leaves
 * files no version references, cleaned up after the next run, which merges the batch again.
 */
public final class MergeCommit implements TableCommit {

    private static final long serialVersionUID = 1L;

    /** Plans made again when another writer's commit came between plan and commit. */
    private static final int MAX_PLANS = 5;

    private final RowType rowType;
    private final List<String> keyColumns;

    public MergeCommit(RowType rowType, List<String> keyColumns) {
        this.rowType = rowType;
        this.keyColumns = List.copyOf(keyColumns);
        new MergeKey(rowType, keyColumns); // refuses a key column the rows lack, here
    }

    @Override
    public CommitResult commit(DeltaTable table, String queryId, long batchId, List<byte[]> items)
            throws IOException {
        if (table.committedBatch(queryId).orElse(-1) >= batchId) {
            // A replay: the txn alone says it is held, with nothing read or written.
            return table.append(queryId, batchId, List.of());
        }
        MergeKey key = new MergeKey(rowType, keyColumns);
        UpsertBatch batch = UpsertBatch.of(ChangeSets.rows(rowType, items), key);
        for (int plan = 1; ; plan++) {
            try {
                return mergeOnce(table, queryId, batchId, batch, key);
            } catch (TableChangedException e) {
                if (plan == MAX_PLANS) {
                    throw new IllegalStateException(
                            "Delta table "
                                    + table.path()
                                    + ": the MERGE of batch "
                                    + batchId
                                    + " of "
                                    + queryId
                                    + " lost to another writer's commit "
                                    + plan
                                    + " times and was not committed. A table has one writer"
                                    + " query: stop the other writer and rerun.",
                            e);
                }
            }
        }
    }

    private CommitResult mergeOnce(
            DeltaTable table, String queryId, long batchId, UpsertBatch batch, MergeKey key)
            throws IOException {
        long started = System.nanoTime();
        DeltaSnapshot snapshot = table.snapshotWithStatistics();
        MergeMetrics metrics = new MergeMetrics();
        metrics.sourceRows = batch.sourceRows();
        Map<List<Object>, RowData> byKey = batch.byKey();
        Set<List<Object>> unmatched = new HashSet<>(byKey.keySet());
        Set<String> removed = new HashSet<>();
        List<DataFile> added = new ArrayList<>();
        ChangeFeedWriter feed = new ChangeFeedWriter(table, rowType);
        List<DataFile> changeFiles = new ArrayList<>();
        try {
            for (DataFile file : snapshot.files()) {
                long scan = System.nanoTime();
                boolean holds = !byKey.isEmpty() && holdsAKey(file, byKey, key);
                metrics.scanMs += elapsedMs(scan);
                if (!holds) {
                    continue;
                }
                long rewrite = System.nanoTime();
                List<RowData> kept = new ArrayList<>();
                for (RowData row : DataFiles.read(new Path(file.path()), rowType)) {
                    List<Object> k = key.of(row);
                    RowData source = k == null ? null : byKey.get(k);
                    if (source == null) {
                        kept.add(row);
                        metrics.copied++;
                    } else {
                        unmatched.remove(k);
                        if (UpsertBatch.isDelete(source)) {
                            metrics.deleted++;
                            feed.deleted(row);
                        } else {
                            feed.updated(row, source);
                            kept.add(asInsert(source));
                            metrics.updated++;
                        }
                    }
                }
                removed.add(file.name());
                metrics.filesRemoved++;
                metrics.bytesRemoved += file.size();
                if (!kept.isEmpty()) {
                    added.add(write(table, queryId, kept));
                }
                metrics.rewriteMs += elapsedMs(rewrite);
            }
            List<RowData> inserted = new ArrayList<>();
            for (Map.Entry<List<Object>, RowData> e : byKey.entrySet()) {
                if (unmatched.contains(e.getKey()) && !UpsertBatch.isDelete(e.getValue())) {
                    inserted.add(asInsert(e.getValue()));
                }
            }
            batch.nullKeyed().forEach(row -> inserted.add(asInsert(row)));
            if (!inserted.isEmpty()) {
                added.add(write(table, queryId, inserted));
            }
            metrics.inserted = inserted.size();
            feed.inserted(inserted);
            changeFiles.addAll(feed.write(table, queryId));
        } catch (IOException | RuntimeException e) {
            deleteAfter(e, added);
            deleteAfter(e, changeFiles);
            throw e;
        }
        metrics.filesAdded = added.size();
        metrics.bytesAdded = added.stream().mapToLong(DataFile::size).sum();
        CommitResult result;
        try {
            result =
                    table.merge(
                            queryId,
                            batchId,
                            snapshot.version(),
                            removed,
                            added,
                            changeFiles,
                            metrics.info(keyColumns, elapsedMs(started)));
        } catch (TableChangedException e) {
            deleteAfter(e, added); // known not committed; any other failure may have committed them
            deleteAfter(e, changeFiles);
            throw e;
        }
        if (!result.committed()) {
            delete(added);
            delete(changeFiles);
        }
        return result;
    }

    /** Whether a file holds a key of the batch: its statistics first, then its key columns. */
    private static boolean holdsAKey(DataFile file, Map<List<Object>, RowData> byKey, MergeKey key)
            throws IOException {
        if (!key.mayHold(file, byKey.keySet())) {
            return false;
        }
        for (RowData keyRow : DataFiles.read(new Path(file.path()), key.keyType())) {
            List<Object> k = key.ofKeyRow(keyRow);
            if (k != null && byKey.containsKey(k)) {
                return true;
            }
        }
        return false;
    }

    private DataFile write(DeltaTable table, String queryId, List<RowData> rows)
            throws IOException {
        Path file =
                new Path(
                        table.path(),
                        DataFileWriter.fileNamePrefix(queryId)
                                + "merge-"
                                + UUID.randomUUID()
                                + DataFiles.SUFFIX);
        return DataFiles.writeFile(file, rowType, rows);
    }

    private static void delete(List<DataFile> files) throws IOException {
        for (DataFile f : files) {
            Path p = new Path(f.path());
            p.getFileSystem().delete(p, false);
        }
    }

    /** Deletes files written for a merge that failed, keeping {@code failure} the error shown. */
    private static void deleteAfter(Exception failure, List<DataFile> files) {
        try {
            delete(files);
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private static RowData asInsert(RowData row) {
        row.setRowKind(RowKind.INSERT);
        return row;
    }

    private static long elapsedMs(long since) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
    }
}
