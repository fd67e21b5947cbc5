package org.flinkss.course.recompute;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.ops.QueryCheckpoint;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.sink.jdbc.JdbcUpsert;
import org.flinkss.runtime.table.TableRewriter;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The course's advice for exact results: "a periodic batch recompute from bronze". Rebuilds the
 * windows of a windowed table that lie within {@code [from, to)} and that the stream has already
 * closed, as a Flink SQL batch job over the table the query reads ({@code events_bronze}, or {@code
 * events_silver} for gold; late rows included; sessions by {@link WindowQuery#sessionRows}, in
 * microseconds as the stream), and replaces exactly those rows where the stream keeps them: the
 * warehouse table, or, for a checkpoint of update mode, the SQL database it upserts into. The
 * stream's checkpoint is left untouched; the query's lock is held so that no run writes the table
 * meanwhile.
 */
public final class Recompute {

    private Recompute() {}

    /** What a recompute did. */
    public static final class Result {
        public final long removed;
        public final long written;
        public final long from;
        public final long to;

        /** The table's home: {@code warehouse <folder>} or {@code the SQL database <url>}. */
        public final String where;

        private Result(long removed, long written, long from, long to, String where) {
            this.removed = removed;
            this.written = written;
            this.from = from;
            this.to = to;
            this.where = where;
        }
    }

    /**
     * Rebuilds the closed windows of {@code table} in {@code [from, to)} where the writing query's
     * current checkpoint keeps them: the SQL database {@code database} for a checkpoint of update
     * mode (its batches are recorded there), the warehouse otherwise.
     *
     * @param database the SQL database of the base, or null when there is none
     * @param base the base anywhere Flink's file systems reach: a local folder or {@code
     *     s3://bucket/prefix} (the writer's checkpoint, held by its lock or lease meanwhile)
     */
    public static Result recompute(
            Warehouse warehouse,
            @Nullable Database database,
            Path base,
            String table,
            long from,
            long to) {
        String writer = writerOf(warehouse, table);
        WindowQuery query = windowQuery(base, table, writer);
        QueryCheckpoint checkpoint = QueryCheckpoint.of(base, writer);
        try (QueryCheckpoint.Lock lock = checkpoint.lock()) {
            // A window the stream has not closed yet will still be written by it: leave it alone.
            long watermark = checkpoint.watermark();
            long end = Math.min(to, watermark);
            if (end <= from) {
                throw new QueryException(
                        "no closed window of '"
                                + table
                                + "' lies in ["
                                + Watermarks.formatInstant(from)
                                + ", "
                                + Watermarks.formatInstant(to)
                                + "): the query's watermark is "
                                + Watermarks.format(watermark));
            }
            // An update-mode checkpoint upserts its windows into the SQL database; a warehouse
            // table of the same name is an earlier append run's, emptied by its reset.
            String queryId = checkpoint.queryId();
            if (database != null && writesToDatabase(database, table, queryId)) {
                List<RowData> rows = windowsFromBronze(warehouse, query, from, end);
                JdbcUpsert sql =
                        new JdbcUpsert(
                                database,
                                table,
                                query.rowType(),
                                query.keyColumns(),
                                () -> queryId);
                long removed;
                try {
                    removed =
                            sql.replace(
                                    key ->
                                            ((Instant) key.get(0)).toEpochMilli() >= from
                                                    && ((Instant) key.get(1)).toEpochMilli() <= end,
                                    rows);
                } catch (SQLException e) {
                    throw new QueryException(e.getMessage(), e);
                }
                return new Result(
                        removed, rows.size(), from, end, "the SQL database " + database.describe());
            }
            if (warehouse.writtenBy(table).equals(Warehouse.REPLACED)) {
                throw new QueryException(
                        "table '"
                                + table
                                + "' is written in complete mode: it holds every window, late rows"
                                + " included, and is replaced at each commit; there is nothing to"
                                + " recompute");
            }
            List<RowData> rows = windowsFromBronze(warehouse, query, from, end);
            TableRewriter.Replaced replaced =
                    new TableRewriter(warehouse, table)
                            .replace(
                                    row ->
                                            row.getTimestamp(0, 3).getMillisecond() >= from
                                                    && row.getTimestamp(1, 3).getMillisecond()
                                                            <= end,
                                    rows);
            return new Result(
                    replaced.removed,
                    replaced.written,
                    from,
                    end,
                    "warehouse " + warehouse.where());
        }
    }

    /**
     * The windowed query {@code writer} that writes {@code table}, in the Table API (the batch job
     * runs the stream's SQL); refused when it is not a windowed aggregation or {@code table} is not
     * its windowed table.
     */
    static WindowQuery windowQuery(Path base, String table, String writer) {
        WindowQuery query =
                QueryCatalog.find(writer)
                        .filter(q -> !q.isComposite() && q.apis().contains(Api.TABLE))
                        .map(q -> q.create(RunOptions.builder().base(base).build(), Api.TABLE))
                        .filter(WindowQuery.class::isInstance)
                        .map(WindowQuery.class::cast)
                        .orElseThrow(
                                () ->
                                        new QueryException(
                                                "table '"
                                                        + table
                                                        + "' is written by query '"
                                                        + writer
                                                        + "', which is not a windowed aggregation:"
                                                        + " nothing to recompute"));
        refuseOtherTablesOf(query, table, writer);
        return query;
    }

    /**
     * The query that writes {@code table}: the warehouse table's owner, or, for a table that only
     * an update-mode run wrote (into the SQL database), the catalog's query of that table.
     */
    static String writerOf(Warehouse warehouse, String table) {
        if (warehouse.exists(table)) {
            return warehouse.writer(table);
        }
        return Arrays.stream(QueryCatalog.values())
                .filter(q -> !q.isComposite() && !q.tables().isEmpty() && q.table().equals(table))
                .map(QueryCatalog::queryName)
                .findFirst()
                .orElseGet(() -> warehouse.writer(table)); // refused: no such table
    }

    /**
     * Only the windowed table itself holds windows: the query's {@code <table>_late} holds the
     * event rows it dropped (their columns are not a window's), and the recompute of the windowed
     * table already counts them.
     */
    private static void refuseOtherTablesOf(WindowQuery query, String table, String writer) {
        if (table.equals(query.table())) {
            return;
        }
        String what =
                table.equals(query.table() + EventTables.LATE_SUFFIX)
                        ? "holds the events query '"
                                + writer
                                + "' dropped as late from '"
                                + query.table()
                                + "', not windows"
                        : "is written by query '"
                                + writer
                                + "' beside its windowed table '"
                                + query.table()
                                + "'";
        throw new QueryException(
                "table '"
                        + table
                        + "' "
                        + what
                        + ": nothing to recompute in it; recompute '"
                        + query.table()
                        + "' instead (its windows are rebuilt from "
                        + query.source()
                        + ", late events included)");
    }

    static boolean writesToDatabase(Database database, String table, String queryId) {
        try {
            return JdbcUpsert.writtenBy(database, table, queryId);
        } catch (SQLException e) {
            throw new QueryException(
                    "cannot read " + database.describe() + ": " + e.getMessage(), e);
        }
    }

    /**
     * The windows of {@code query} that start at or after {@code from} and end by {@code to},
     * computed from the current snapshot of its source table as a batch job.
     */
    static List<RowData> windowsFromBronze(
            Warehouse warehouse, WindowQuery query, long from, long to) {
        // The source table's current snapshot (its committed data files only), event columns,
        // within the range the windows need.
        long lookFrom = query.isSessions() ? Long.MIN_VALUE : from - query.lookBackMillis();
        long lookTo = query.isSessions() ? Long.MAX_VALUE : to + query.lookBackMillis();
        DeltaSnapshot snapshot = warehouse.snapshot(query.source());
        // The event columns lead the table's (bronze may add _rescued_data after them).
        // Read at the table's own types (a table of an earlier version has event_ts in ms).
        RowType eventRow = EventTables.EVENT_ROW;
        RowType tableRow = snapshot.rowType();
        RowData.FieldGetter[] columns = new RowData.FieldGetter[eventRow.getFieldCount()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = RowData.createFieldGetter(tableRow.getTypeAt(i), i);
        }
        int ts = eventRow.getFieldIndex("event_ts");
        int tsPrecision = LogicalTypeChecks.getPrecision(tableRow.getTypeAt(ts));
        List<RowData> events = new ArrayList<>();
        for (RowData row : snapshot.rows()) {
            if (!row.isNullAt(ts)) {
                long t = row.getTimestamp(ts, tsPrecision).getMillisecond();
                if (t >= lookFrom && t < lookTo) {
                    GenericRowData event = new GenericRowData(columns.length);
                    for (int i = 0; i < columns.length; i++) {
                        event.setField(i, columns[i].getFieldOrNull(row));
                    }
                    events.add(event);
                }
            }
        }
        if (query.isSessions()) {
            // Sessions in microseconds, as the stream and Spark compute them (a Flink SQL SESSION
            // window works on milliseconds).
            List<RowData> rows = new ArrayList<>();
            for (RowData row : query.sessionRows(events)) {
                if (row.getTimestamp(0, 6).getMillisecond() >= from
                        && row.getTimestamp(1, 6).getMillisecond() <= to) {
                    rows.add(row);
                }
            }
            return rows;
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        tEnv.createTemporaryView(
                "bronze", tEnv.fromDataStream(env.fromData(events, InternalTypeInfo.of(eventRow))));
        // No WHERE: the events are already limited to the range above.
        TableResult result =
                tEnv.executeSql(
                        query.windowSql("bronze", "event_ts", "user_id", "event_type", null));
        List<RowData> rows = new ArrayList<>();
        boolean byUser = query.isSessions();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                RowData row = WindowQuery.toRowData(it.next(), byUser);
                long start = row.getTimestamp(0, 3).getMillisecond();
                long end = row.getTimestamp(1, 3).getMillisecond();
                if (start >= from && end <= to) {
                    rows.add(row);
                }
            }
        } catch (Exception e) {
            throw new QueryException(
                    "the recompute of '"
                            + query.table()
                            + "' from bronze failed: "
                            + e.getMessage(),
                    e);
        }
        return rows;
    }
}
