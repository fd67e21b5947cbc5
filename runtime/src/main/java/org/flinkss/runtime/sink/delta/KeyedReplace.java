package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Replaces some rows of a Delta table outside any stream by their key, in one idempotent commit: a
 * {@code MERGE} (Delta's metrics in its {@code commitInfo}) carrying {@code txn(appId, version)},
 * so that the same replace made again finds the table holding it and commits nothing. Copy-on-write
 * as {@link MergeCommit}: the data files holding a replaced row are removed, their other rows
 * written again, the new rows added in a file of their own. On a table with the change data feed
 * the commit writes it: a key in both the old and the new rows whose values differ is an {@code
 * update_preimage}/{@code update_postimage} pair, an old key alone a {@code delete}, a new key
 * alone an {@code insert}; an unchanged row is not in the feed.
 */
public final class KeyedReplace {

    private final DeltaTable table;
    private final List<String> keyColumns;

    /**
     * @param keyColumns the columns that name a row (e.g. {@code window_start, window_end, key})
     */
    public KeyedReplace(DeltaTable table, List<String> keyColumns) {
        this.table = table;
        this.keyColumns = List.copyOf(keyColumns);
    }

    /**
     * What a replace did: its commit, and how many of the table's rows it removed (matched by the
     * predicate, replaced or deleted).
     */
    public record Replaced(CommitResult commit, long removedRows) {}

    /**
     * Removes every row that {@code toReplace} matches and adds {@code newRows}, in one version
     * carrying {@code txn(appId, version)}; skipped when the table already holds that version of
     * {@code appId}. {@code toReplace} must match every old row of the keys of {@code newRows}.
     */
    public Replaced replace(
            Predicate<RowData> toReplace, List<RowData> newRows, String appId, long version) {
        long started = System.currentTimeMillis();
        DeltaSnapshot snapshot = table.snapshot();
        RowType type = snapshot.rowType();
        RowData.FieldGetter[] getters = getters(type);
        int[] keys = keyColumns.stream().mapToInt(type::getFieldIndex).toArray();
        Path folder = new Path(table.path());
        MergeMetrics metrics = new MergeMetrics();
        ChangeFeedWriter feed = new ChangeFeedWriter(table, type);
        Set<String> removed = new HashSet<>();
        List<DataFile> added = new ArrayList<>();
        Map<List<Object>, RowData> oldRows = new LinkedHashMap<>();
        long matched = 0;
        try {
            for (DataFile file : snapshot.files()) {
                List<RowData> rows = DataFiles.read(new Path(file.path()), type);
                List<RowData> kept = new ArrayList<>();
                for (RowData row : rows) {
                    if (toReplace.test(row)) {
                        matched++;
                        oldRows.put(key(row, getters, keys), row);
                    } else {
                        kept.add(row);
                    }
                }
                if (kept.size() < rows.size()) {
                    removed.add(file.name());
                    metrics.filesRemoved++;
                    metrics.bytesRemoved += file.size();
                    metrics.copied += kept.size();
                    if (!kept.isEmpty()) {
                        added.add(write(folder, type, kept));
                    }
                }
            }
            List<RowData> inserted = new ArrayList<>();
            for (RowData row : newRows) {
                RowData before = oldRows.remove(key(row, getters, keys));
                if (before == null) {
                    inserted.add(row);
                    metrics.inserted++;
                } else {
                    metrics.updated++;
                    if (!same(before, row, getters)) {
                        feed.updated(before, row);
                    }
                }
            }
            for (RowData gone : oldRows.values()) {
                feed.deleted(gone);
                metrics.deleted++;
            }
            feed.inserted(inserted);
            metrics.sourceRows = newRows.size();
            if (!newRows.isEmpty()) {
                added.add(write(folder, type, newRows));
            }
            metrics.filesAdded = added.size();
            metrics.bytesAdded = added.stream().mapToLong(DataFile::size).sum();
            List<DataFile> changeFiles = feed.write(table, "reconcile");
            // A replace outside any stream makes no window final or open: the commit says what
            // the newest batch commit said, so that table show --final reads on after it.
            table.recordInCommits(table.completeness());
            CommitResult commit =
                    table.merge(
                            appId,
                            version,
                            snapshot.version(),
                            removed,
                            added,
                            changeFiles,
                            metrics.info(keyColumns, System.currentTimeMillis() - started));
            return new Replaced(commit, matched);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot rewrite Delta table " + table.path() + ": " + e.getMessage(), e);
        }
    }

    private static RowData.FieldGetter[] getters(RowType type) {
        RowData.FieldGetter[] getters = new RowData.FieldGetter[type.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
        }
        return getters;
    }

    private static List<Object> key(RowData row, RowData.FieldGetter[] getters, int[] keys) {
        List<Object> key = new ArrayList<>(keys.length);
        for (int k : keys) {
            key.add(getters[k].getFieldOrNull(row));
        }
        return key;
    }

    private static boolean same(RowData a, RowData b, RowData.FieldGetter[] getters) {
        for (RowData.FieldGetter getter : getters) {
            if (!Objects.equals(getter.getFieldOrNull(a), getter.getFieldOrNull(b))) {
                return false;
            }
        }
        return true;
    }

    private static DataFile write(Path folder, RowType type, List<RowData> rows)
            throws IOException {
        return DataFiles.writeFile(
                new Path(folder, "reconcile-" + UUID.randomUUID() + DataFiles.SUFFIX), type, rows);
    }
}
