package org.flinkss.course.queries;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;

import org.flinkss.course.event.Event;
import org.flinkss.course.operators.LateEvents;
import org.flinkss.course.operators.SessionsFunction;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.operators.LateRowRouter;
import org.flinkss.runtime.operators.WindowEmission;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.ChangesPerBatch;
import org.flinkss.runtime.sink.jdbc.Database;

import javax.annotation.Nullable;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The course's windowed aggregations (topics 11.07, 11.10, 11.11) over {@code events_bronze} as a
 * stream, with a 10-minute watermark on {@code event_ts} ({@link QueryCatalog#WATERMARK_DELAY}), in
 * append mode unless the run's output mode says otherwise:
 *
 * <ul>
 *   <li>{@code win5}: 5-minute tumbling windows by {@code event_type} into {@code events_5min};
 *   <li>{@code sliding}: 10-minute windows sliding every 5 minutes into {@code events_sliding};
 *   <li>{@code sessions}: sessions with a 2-minute gap by {@code user_id} into {@code
 *       events_sessions}.
 * </ul>
 *
 * <p>{@code events = count(*)}, {@code amount = round(sum(amount), 2)}. The same query exists in
 * the DataStream API (window assigners and an aggregate function) and in the Table API (window
 * TVFs); both stand behind the same late-row router and write identical tables. Late rows go to
 * {@code <table>_late}.
 */
public final class WindowQuery implements Query {

    enum Kind {
        TUMBLING,
        SLIDING,
        SESSION
    }

    private final QueryCatalog entry;
    private final String name;
    private final String source;
    private final String table;
    private final Kind kind;
    private final Duration size;
    private final Duration slide;
    private final String keyColumn;
    private final Api api;
    private final OutputMode mode;
    @Nullable private final Database database;

    private WindowQuery(
            QueryCatalog entry,
            String source,
            Kind kind,
            Duration size,
            Duration slide,
            String keyColumn,
            Api api,
            OutputMode mode,
            @Nullable Database database) {
        this.entry = entry;
        this.name = entry.queryName();
        this.source = source;
        this.table = entry.table();
        this.kind = kind;
        this.size = size;
        this.slide = slide;
        this.keyColumn = keyColumn;
        this.api = api;
        this.mode = mode;
        this.database = database;
    }

    private WindowQuery(
            QueryCatalog entry,
            String source,
            Kind kind,
            Duration size,
            Duration slide,
            String keyColumn,
            Api api) {
        this(entry, source, kind, size, slide, keyColumn, api, OutputMode.APPEND, null);
    }

    /**
     * The same query in the run's output mode (topic 11.02): update MERGEs the changed windows of
     * each batch into the Delta table of the warehouse (or, given {@code --jdbc-url}, upserts them
     * into that database); complete replaces the table of the warehouse with every window at each
     * commit. {@link QueryCatalog#check} refuses, with the reason, the modes Spark or Flink SQL
     * cannot do; only the catalog calls this.
     */
    WindowQuery withOutputMode(RunOptions run) {
        return new WindowQuery(
                entry,
                source,
                kind,
                size,
                slide,
                keyColumn,
                api,
                run.outputMode(),
                QueryCatalog.updateDatabase(run));
    }

    public static WindowQuery win5(Api api) {
        return new WindowQuery(
                QueryCatalog.WIN5,
                EventTables.BRONZE,
                Kind.TUMBLING,
                Duration.ofMinutes(5),
                Duration.ofMinutes(5),
                "event_type",
                api);
    }

    public static WindowQuery sliding(Api api) {
        return new WindowQuery(
                QueryCatalog.SLIDING,
                EventTables.BRONZE,
                Kind.SLIDING,
                Duration.ofMinutes(10),
                Duration.ofMinutes(5),
                "event_type",
                api);
    }

    public static WindowQuery sessions(Api api) {
        return new WindowQuery(
                QueryCatalog.SESSIONS,
                EventTables.BRONZE,
                Kind.SESSION,
                Duration.ofMinutes(2),
                Duration.ofMinutes(2),
                "user_id",
                api);
    }

    /**
     * The pipeline's gold layer: 30-minute windows by event_type over events_silver into
     * events_by_type.
     */
    public static WindowQuery gold(Api api) {
        return new WindowQuery(
                QueryCatalog.GOLD,
                QueryCatalog.SILVER.table(),
                Kind.TUMBLING,
                Duration.ofMinutes(30),
                Duration.ofMinutes(30),
                "event_type",
                api);
    }

    /**
     * The key of the DataStream window operator's rows whose key column is null: Spark groups nulls
     * together, and Flink keys must not be null.
     */
    public static final String NULL_KEY = "\u0000null";

    /** Whether the windows slide (a row is in several). */
    public boolean isSliding() {
        return kind == Kind.SLIDING;
    }

    /** Whether the windows are sessions, keyed by {@code user_id}. */
    public boolean isSessions() {
        return kind == Kind.SESSION;
    }

    /** The table the query reads as a stream. */
    public String source() {
        return source;
    }

    public String table() {
        return table;
    }

    @Override
    public String name() {
        return name;
    }

    /** The columns of the table the query writes. */
    public RowType rowType() {
        return EventTables.windowRow(
                keyColumn,
                keyColumn.equals("user_id") ? new IntType() : VarCharType.STRING_TYPE,
                kind == Kind.SESSION ? EventTables.EVENT_TS_PRECISION : 3);
    }

    private String describe() {
        String window =
                kind == Kind.SLIDING
                        ? "sliding " + size.toMinutes() + " min every " + slide.toMinutes() + " min"
                        : kind == Kind.SESSION
                                ? "session gap " + size.toMinutes() + " min"
                                : "tumbling " + size.toMinutes() + " min";
        // Append keeps the description it always had, so existing checkpoints stay valid.
        return "window["
                + api.text()
                + "]: "
                + window
                + " by "
                + keyColumn
                + ", watermark "
                + QueryCatalog.WATERMARK_DELAY.toMinutes()
                + " min"
                + (mode == OutputMode.APPEND ? "" : ", output mode " + mode.text())
                // Sessions in microseconds (issue 13): their state, start and end hold them, so
                // a checkpoint of the millisecond layout is refused with a 'reset' hint.
                + (kind == Kind.SESSION ? ", microseconds" : "");
    }

    /** The result's key: a window and its group. */
    public List<String> keyColumns() {
        return List.of("window_start", "window_end", keyColumn);
    }

    @Override
    public void build(QueryContext context) {
        context.stateful(describe());
        DataStream<Event> events =
                context.tableStream(source, "event_ts", QueryCatalog.WATERMARK_DELAY)
                        .map(EventTables::fromRow)
                        .returns(Event.class)
                        .name("events")
                        .uid("events-" + name);
        if (mode == OutputMode.COMPLETE) {
            // Complete mode keeps every window: the watermark drops nothing, so no late-row table.
            DataStream<RowData> changes =
                    api == Api.TABLE
                            ? new WindowTableBuilder(this, context).changes(events, false)
                            : new WindowStreamBuilder(this, context).windows(events);
            context.toCompleteTable(changes, table, rowType(), keyColumns());
            return;
        }
        LateRowRouter<Event> late = LateEvents.router("window", lateRule(), context.scope());
        SingleOutputStreamOperator<Event> onTime =
                events.process(late).name("drop-late-rows").uid("late-rows-" + name);
        if (mode == OutputMode.UPDATE) {
            DataStream<RowData> changes =
                    api == Api.TABLE
                            ? new WindowTableBuilder(this, context).changes(onTime, true)
                            : new WindowStreamBuilder(this, context).windows(onTime);
            if (database != null) {
                context.toUpdatedTable(changes, table, rowType(), keyColumns(), database);
            } else {
                // The SQL path's checkpoint is refused here, and the other way round: each
                // recorded its batches in its own table.
                context.stateful(QueryCatalog.deltaMerge(table));
                context.toMergedTable(
                        ChangesPerBatch.of(changes, rowType(), keyColumns(), "changes-" + table),
                        table,
                        rowType(),
                        keyColumns());
            }
        } else {
            DataStream<RowData> windows =
                    api == Api.TABLE
                            ? new WindowTableBuilder(this, context).windows(onTime)
                            : new WindowStreamBuilder(this, context).windows(onTime);
            context.toTable(windows, EventTables.rows(table, rowType()));
        }
        context.toTable(
                onTime.getSideOutput(late.lateRows()),
                EventTables.late(table + EventTables.LATE_SUFFIX, context.runId()));
    }

    /** What the window operator writes in this query's output mode. */
    WindowEmission emission() {
        switch (mode) {
            case UPDATE:
                return WindowEmission.CHANGES;
            case COMPLETE:
                return WindowEmission.ALL;
            default:
                return WindowEmission.FINAL;
        }
    }

    private LateRowRouter.Rule lateRule() {
        return kind == Kind.SESSION
                ? LateRowRouter.sessionRule(size.toMillis())
                : LateRowRouter.windowRule(size.toMillis(), slide.toMillis());
    }

    // What the builders of both APIs read.

    Kind kind() {
        return kind;
    }

    Duration size() {
        return size;
    }

    Duration slide() {
        return slide;
    }

    String keyColumn() {
        return keyColumn;
    }

    /** Whether the key is {@code user_id} (an int), not {@code event_type} (a string). */
    boolean byUser() {
        return keyColumn.equals("user_id");
    }

    /** A timestamp of microseconds since the epoch, as the windowed tables hold them. */
    static TimestampData timestampOfMicros(long micros) {
        return TimestampData.fromEpochMillis(
                Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000);
    }

    /**
     * The course's aggregation as one SQL query over a window TVF; the stream and the batch
     * recompute run the same text for tumbling and sliding windows. Sessions run neither: a SQL
     * {@code SESSION} window works on milliseconds (see {@link SessionsFunction} and {@link
     * #sessionRows}).
     *
     * @param where an extra condition on the input rows, or null
     */
    public String windowSql(
            String view, String timeColumn, String userColumn, String typeColumn, String where) {
        String key = keyColumn.equals("user_id") ? userColumn : typeColumn;
        String input =
                where == null
                        ? "TABLE " + view
                        : "(SELECT * FROM " + view + " WHERE " + where + ")";
        String window;
        switch (kind) {
            case SLIDING:
                window =
                        "HOP("
                                + input
                                + ", DESCRIPTOR("
                                + timeColumn
                                + "), "
                                + interval(slide)
                                + ", "
                                + interval(size)
                                + ")";
                break;
            case SESSION:
                throw new IllegalStateException(
                        name
                                + ": sessions are not a SQL window here (microseconds); see"
                                + " sessionRows");
            default:
                window =
                        "TUMBLE("
                                + input
                                + ", DESCRIPTOR("
                                + timeColumn
                                + "), "
                                + interval(size)
                                + ")";
        }
        return "SELECT window_start, window_end, "
                + key
                + " AS "
                + keyColumn
                + ", COUNT(*) AS events, ROUND(SUM(amount), 2) AS amount FROM TABLE("
                + window
                + ")"
                + " GROUP BY window_start, window_end, "
                + key;
    }

    /**
     * The sessions of a finished set of event rows ({@link EventTables#EVENT_ROW}), as Spark
     * computes them in a batch ({@link BatchSessions}); rows in this query's table type. For {@code
     * recompute}.
     */
    public List<RowData> sessionRows(List<RowData> events) {
        if (kind != Kind.SESSION) {
            throw new IllegalStateException(name + " has no sessions");
        }
        return BatchSessions.of(events, size.toMillis() * 1000);
    }

    /**
     * The fixed windows that hold an event at {@code eventMicros} (epoch microseconds), as Spark
     * assigns them: each {@code [start, end)} in epoch milliseconds, newest first. Sessions have no
     * fixed windows.
     */
    public List<long[]> windowsHolding(long eventMicros) {
        if (kind == Kind.SESSION) {
            throw new IllegalStateException(name + " has sessions, not fixed windows");
        }
        long millis = Math.floorDiv(eventMicros, 1000);
        long step = slide.toMillis();
        long length = size.toMillis();
        List<long[]> windows = new ArrayList<>();
        for (long start = Math.floorDiv(millis, step) * step;
                start + length > millis;
                start -= step) {
            windows.add(new long[] {start, start + length});
        }
        return windows;
    }

    /** How far before a window's start its rows can lie: sessions chain, so read generously. */
    public long lookBackMillis() {
        return kind == Kind.SESSION ? Duration.ofHours(6).toMillis() : size.toMillis();
    }

    public static RowData toRowData(Row row, boolean byUser) {
        Object key = row.getField(2);
        return GenericRowData.of(
                TimestampData.fromInstant(
                        ((LocalDateTime) row.getField(0)).toInstant(ZoneOffset.UTC)),
                TimestampData.fromInstant(
                        ((LocalDateTime) row.getField(1)).toInstant(ZoneOffset.UTC)),
                key == null ? null : byUser ? key : StringData.fromString((String) key),
                row.getField(3),
                row.getField(4));
    }

    private static String interval(Duration d) {
        return "INTERVAL '" + d.toMinutes() + "' MINUTE";
    }
}
