package org.flinkss.course.recompute;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.flinkss.course.queries.WindowQuery;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.ops.QueryCheckpoint;
import org.flinkss.runtime.sink.delta.KeyedReplace;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.table.TableMode;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * Folds the late rows of a windowed table back in (the course's topic 11.11: "recompute from
 * bronze"), in one step: the rows of {@code <table>_late} not yet reconciled name the windows they
 * missed; those windows, closed by the stream, are computed again from the query's source table and
 * replace the table's rows of them in one Delta commit ({@link KeyedReplace}: a {@code MERGE} with
 * the change feed where the table has one).
 *
 * <p>The late rows are marked reconciled by the commit itself: it carries {@code
 * txn(reconcile:<late table>, V)}, V the version of {@code <table>_late} it read up to, so a second
 * reconcile with no new late rows finds the table holding V and commits nothing, and one that
 * crashed before its commit is simply run again. The stream's checkpoint is left untouched; the
 * query's lock is held so that no run writes the table meanwhile.
 */
public final class Reconcile {

    private Reconcile() {}

    /** What a reconcile did. */
    public record Result(
            long lateRows,
            int windows,
            long lateVersion,
            long removedRows,
            long writtenRows,
            CommitResult commit) {

        /** Whether there was nothing to fold in: no commit was made. */
        public boolean nothingToDo() {
            return commit == null;
        }
    }

    /** The {@code txn} application id of the reconciles of {@code lateTable}. */
    public static String appId(String lateTable) {
        return "reconcile:" + lateTable;
    }

    /**
     * Folds the late rows of windowed table {@code table} that no reconcile has folded in yet into
     * the table, where their windows are closed.
     *
     * @param database the SQL database of the base, or null when there is none
     * @param base the base of the writing query's checkpoint (held by its lock meanwhile)
     */
    public static Result reconcile(
            Warehouse warehouse, @Nullable Database database, Path base, String table) {
        String writer = Recompute.writerOf(warehouse, table);
        WindowQuery query = Recompute.windowQuery(base, table, writer);
        if (query.isSessions()) {
            throw new QueryException(
                    "reconcile folds late rows into fixed windows; a late event may join or split"
                            + " sessions of '"
                            + table
                            + "', so rebuild them with recompute "
                            + table
                            + " --from ... --to ... instead");
        }
        String lateTable = table + EventTables.LATE_SUFFIX;
        if (!warehouse.exists(lateTable)) {
            throw new QueryException(
                    "table '"
                            + table
                            + "' has no late rows table '"
                            + lateTable
                            + "' in warehouse "
                            + warehouse.where()
                            + ": run query '"
                            + writer
                            + "' first");
        }
        if (warehouse.writtenBy(table) == TableMode.REPLACED) {
            throw new QueryException(
                    "table '"
                            + table
                            + "' is written in complete mode: it is replaced at each commit, so a"
                            + " reconciled window would be lost at the next one; nothing to"
                            + " reconcile");
        }
        QueryCheckpoint checkpoint = QueryCheckpoint.of(base, writer);
        try (QueryCheckpoint.Lock lock = checkpoint.lock()) {
            if (database != null
                    && Recompute.writesToDatabase(database, table, checkpoint.queryId())) {
                throw new QueryException(
                        "table '"
                                + table
                                + "' is upserted into the SQL database "
                                + database.describe()
                                + " by this checkpoint of query '"
                                + writer
                                + "' (update mode with --jdbc-url): reconcile folds late rows into"
                                + " Delta tables; rebuild its windows there with recompute "
                                + table
                                + " --from ... --to ...");
            }
            DeltaTable target = warehouse.existing(table);
            DeltaTable late = warehouse.existing(lateTable);
            String appId = appId(lateTable);
            long done = target.committedBatch(appId).orElse(-1L);
            long upTo = late.version();
            if (upTo <= done) {
                return new Result(0, 0, upTo, 0, 0, null);
            }
            List<Long> lateTimes = lateEventTimes(late, done + 1, upTo);
            // The windows each late row missed: those the stream has closed (a late row's window
            // ended by the watermark it missed, so every tumbling one is), keyed by start.
            long watermark = checkpoint.watermark();
            TreeMap<Long, Long> windows = new TreeMap<>();
            for (long micros : lateTimes) {
                for (long[] w : query.windowsHolding(micros)) {
                    if (w[1] <= watermark) {
                        windows.put(w[0], w[1]);
                    }
                }
            }
            if (windows.isEmpty()) {
                return new Result(lateTimes.size(), 0, upTo, 0, 0, null);
            }
            long from = windows.firstKey();
            long to = windows.lastEntry().getValue();
            List<RowData> rows = new ArrayList<>();
            for (RowData row : Recompute.windowsFromBronze(warehouse, query, from, to)) {
                if (inWindows(row, windows)) {
                    rows.add(row);
                }
            }
            KeyedReplace.Replaced replaced =
                    new KeyedReplace(target, query.keyColumns())
                            .replace(row -> inWindows(row, windows), rows, appId, upTo);
            return new Result(
                    lateTimes.size(),
                    windows.size(),
                    upTo,
                    replaced.removedRows(),
                    rows.size(),
                    replaced.commit());
        }
    }

    private static boolean inWindows(RowData row, TreeMap<Long, Long> windows) {
        long start = row.getTimestamp(0, 3).getMillisecond();
        Long end = windows.get(start);
        return end != null && row.getTimestamp(1, 3).getMillisecond() == end;
    }

    /**
     * The event times (epoch microseconds) of the late rows that versions {@code from..to} of the
     * late table added and its version {@code to} still holds (a reset empties it).
     */
    private static List<Long> lateEventTimes(DeltaTable late, long from, long to) {
        // From version 0: every file the table holds (its first log entries may be gone after a
        // log checkpoint).
        Set<String> added = from == 0 ? null : late.namesAdded(from, to);
        DeltaSnapshot snapshot = late.snapshotAt(to);
        RowType type = snapshot.rowType();
        int ts = type.getFieldIndex("event_ts");
        int precision = LogicalTypeChecks.getPrecision(type.getTypeAt(ts));
        List<Long> times = new ArrayList<>();
        try {
            for (DataFile file : snapshot.files()) {
                if (added != null && !added.contains(file.name())) {
                    continue;
                }
                for (RowData row : DataFiles.read(new Path(file.path()), type)) {
                    if (!row.isNullAt(ts)) {
                        var t = row.getTimestamp(ts, precision);
                        times.add(
                                Math.addExact(
                                        Math.multiplyExact(t.getMillisecond(), 1000L),
                                        t.getNanoOfMillisecond() / 1000));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the late rows of " + late.path() + ": " + e.getMessage(), e);
        }
        return times;
    }
}
