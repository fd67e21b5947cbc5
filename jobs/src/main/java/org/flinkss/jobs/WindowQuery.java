package org.flinkss.jobs;

import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;

import org.flinkss.event.Event;
import org.flinkss.query.Query;
import org.flinkss.query.QueryContext;
import org.flinkss.table.EventTables;
import org.flinkss.time.LateRowRouter;
import org.flinkss.window.CountAndSum;
import org.flinkss.window.WindowAggregate;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The course's windowed aggregations (topics 11.07, 11.10, 11.11) over {@code events_bronze} as a
 * stream, with a 10-minute watermark on {@code event_ts}, in append mode:
 *
 * <ul>
 *   <li>{@code win5}: 5-minute tumbling windows by {@code event_type} into {@code events_5min};
 *   <li>{@code sliding}: 10-minute windows sliding every 5 minutes into {@code events_sliding};
 *   <li>{@code sessions}: sessions with a 2-minute gap by {@code user_id} into {@code events_sessions}.
 * </ul>
 *
 * <p>{@code events = count(*)}, {@code amount = round(sum(amount), 2)}. The same query exists in the
 * DataStream API (window assigners and an aggregate function) and in the Table API (window TVFs);
 * both stand behind the same late-row router and write identical tables. Late rows go to
 * {@code <table>_late}.
 */
public final class WindowQuery implements Query {

    public static final Duration WATERMARK_DELAY = Duration.ofMinutes(10);

    enum Kind { TUMBLING, SLIDING, SESSION }

    private final String name;
    private final String source;
    private final String table;
    private final Kind kind;
    private final Duration size;
    private final Duration slide;
    private final String keyColumn;
    private final String api;

    private WindowQuery(String name, String table, Kind kind, Duration size, Duration slide, String keyColumn, String api) {
        this(name, EventTables.BRONZE, table, kind, size, slide, keyColumn, api);
    }

    private WindowQuery(String name, String source, String table, Kind kind, Duration size, Duration slide, String keyColumn, String api) {
        this.name = name;
        this.source = source;
        this.table = table;
        this.kind = kind;
        this.size = size;
        this.slide = slide;
        this.keyColumn = keyColumn;
        this.api = api;
    }

    public static WindowQuery win5(String api) {
        return new WindowQuery("win5", "events_5min", Kind.TUMBLING, Duration.ofMinutes(5), Duration.ofMinutes(5), "event_type", api);
    }

    public static WindowQuery sliding(String api) {
        return new WindowQuery("sliding", "events_sliding", Kind.SLIDING, Duration.ofMinutes(10), Duration.ofMinutes(5), "event_type", api);
    }

    public static WindowQuery sessions(String api) {
        return new WindowQuery("sessions", "events_sessions", Kind.SESSION, Duration.ofMinutes(2), Duration.ofMinutes(2), "user_id", api);
    }

    /** The pipeline's gold layer: 30-minute windows by event_type over events_silver into events_by_type. */
    public static WindowQuery gold(String api) {
        return new WindowQuery("gold", "events_silver", "events_by_type", Kind.TUMBLING, Duration.ofMinutes(30), Duration.ofMinutes(30),
                "event_type", api);
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

    RowType rowType() {
        return EventTables.windowRow(keyColumn, keyColumn.equals("user_id") ? new IntType() : VarCharType.STRING_TYPE);
    }

    private String describe() {
        String window = kind == Kind.SLIDING ? "sliding " + size.toMinutes() + " min every " + slide.toMinutes() + " min"
                : kind == Kind.SESSION ? "session gap " + size.toMinutes() + " min" : "tumbling " + size.toMinutes() + " min";
        return "window[" + api + "]: " + window + " by " + keyColumn + ", watermark " + WATERMARK_DELAY.toMinutes() + " min";
    }

    @Override
    public void build(QueryContext context) {
        context.stateful(describe());
        DataStream<Event> events = context.tableStream(source, "event_ts", WATERMARK_DELAY)
                .map(EventTables::fromRow).returns(Event.class).name("events").uid("events-" + name);
        SingleOutputStreamOperator<Event> onTime = events
                .process(new LateRowRouter("window", lateRule(), context.checkpointPath(), context.runId()))
                .name("drop-late-rows").uid("late-rows-" + name);
        DataStream<RowData> windows = api.equals("table") ? withTable(context, onTime) : withDataStream(context, onTime);
        context.toTable(windows, EventTables.rows(table, rowType()));
        context.toTable(onTime.getSideOutput(LateRowRouter.LATE), EventTables.late(table + "_late", context.runId()));
    }

    private LateRowRouter.Rule lateRule() {
        return kind == Kind.SESSION ? LateRowRouter.sessionRule(size.toMillis()) : LateRowRouter.windowRule(size.toMillis(), slide.toMillis());
    }

    private WindowAssigner<Object, TimeWindow> assigner() {
        switch (kind) {
            case SLIDING: return SlidingEventTimeWindows.of(size, slide);
            case SESSION: return EventTimeSessionWindows.withGap(size);
            default: return TumblingEventTimeWindows.of(size);
        }
    }

    /** DataStream API: Flink's window assigners and an aggregate function, in a keyed operator. */
    private DataStream<RowData> withDataStream(QueryContext context, DataStream<Event> onTime) {
        boolean byUser = keyColumn.equals("user_id");
        KeySelector<Event, String> key = byUser
                ? e -> e.userId == null ? NULL_KEY : String.valueOf(e.userId)
                : e -> e.eventType == null ? NULL_KEY : e.eventType;
        WindowAggregate.Emitter<String, CountAndSum> emitter = (start, end, k, acc) -> GenericRowData.of(
                TimestampData.fromEpochMillis(start),
                TimestampData.fromEpochMillis(end),
                k.equals(NULL_KEY) ? null : byUser ? (Object) Integer.valueOf(k) : StringData.fromString(k),
                acc.events,
                acc.roundedAmount());
        return onTime.keyBy(key)
                .process(new WindowAggregate<>("window", assigner(), new CountAndSum.Function(), CountAndSum.class, emitter,
                        context.checkpointPath(), context.runId()))
                .returns(InternalTypeInfo.of(rowType()))
                .name("window").uid("window-" + name);
    }

    /** Spark groups nulls together; Flink keys must not be null. */
    private static final String NULL_KEY = "\u0000null";

    /** Table API: the rows and the watermark of the same stream, and a window TVF in SQL. */
    private DataStream<RowData> withTable(QueryContext context, DataStream<Event> onTime) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        // window_start and window_end are TIMESTAMP(3) in the session time zone: make it UTC.
        tEnv.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        Table events = EventTables.withSourceWatermark(tEnv, onTime);
        String view = "events_for_" + name;
        tEnv.createTemporaryView(view, events);
        Table result = tEnv.sqlQuery(windowSql(view, "rowtime", "userId", "eventType", null));
        boolean byUser = keyColumn.equals("user_id");
        return tEnv.toDataStream(result)
                .map(row -> toRowData(row, byUser))
                .returns(InternalTypeInfo.of(rowType()))
                .name("window-rows").uid("window-rows-" + name);
    }

    /**
     * The course's aggregation as one SQL query over a window TVF; the stream and the batch
     * recompute run the same text.
     *
     * @param where an extra condition on the input rows, or null
     */
    String windowSql(String view, String timeColumn, String userColumn, String typeColumn, String where) {
        String key = keyColumn.equals("user_id") ? userColumn : typeColumn;
        String input = where == null ? "TABLE " + view : "(SELECT * FROM " + view + " WHERE " + where + ")";
        String window;
        switch (kind) {
            case SLIDING:
                window = "HOP(" + input + ", DESCRIPTOR(" + timeColumn + "), " + interval(slide) + ", " + interval(size) + ")";
                break;
            case SESSION:
                window = "SESSION(" + input + " PARTITION BY " + key + ", DESCRIPTOR(" + timeColumn + "), " + interval(size) + ")";
                break;
            default:
                window = "TUMBLE(" + input + ", DESCRIPTOR(" + timeColumn + "), " + interval(size) + ")";
        }
        return "SELECT window_start, window_end, " + key + " AS " + keyColumn
                + ", COUNT(*) AS events, ROUND(SUM(amount), 2) AS amount FROM TABLE(" + window + ")"
                + " GROUP BY window_start, window_end, " + key;
    }

    /** How far before a window's start its rows can lie: sessions chain, so read generously. */
    long lookBackMillis() {
        return kind == Kind.SESSION ? Duration.ofHours(6).toMillis() : size.toMillis();
    }

    static RowData toRowData(Row row, boolean byUser) {
        Object key = row.getField(2);
        return GenericRowData.of(
                TimestampData.fromInstant(((LocalDateTime) row.getField(0)).toInstant(ZoneOffset.UTC)),
                TimestampData.fromInstant(((LocalDateTime) row.getField(1)).toInstant(ZoneOffset.UTC)),
                key == null ? null : byUser ? key : StringData.fromString((String) key),
                row.getField(3),
                row.getField(4));
    }

    private static String interval(Duration d) {
        return "INTERVAL '" + d.toMinutes() + "' MINUTE";
    }
}
