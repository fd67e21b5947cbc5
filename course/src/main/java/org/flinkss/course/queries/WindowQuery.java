package org.flinkss.course.queries;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.functions.TableFunction;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.flinkss.course.event.Event;
import org.flinkss.course.operators.CountAndSum;
import org.flinkss.course.operators.LateEvents;
import org.flinkss.course.operators.SessionsFunction;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.jdbc.Database;
import org.flinkss.runtime.operators.LateRowRouter;
import org.flinkss.runtime.operators.WindowAggregate;
import org.flinkss.runtime.operators.WindowCombiner;
import org.flinkss.runtime.operators.WindowEmission;
import org.flinkss.runtime.operators.WindowPartial;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

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
        if (mode == OutputMode.UPDATE && database == null) {
            throw new IllegalArgumentException(
                    "update mode writes through the upsert sink: it needs a database");
        }
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
     * The same query in the run's output mode (topic 11.02): update upserts the changed windows of
     * each batch into the run's database; complete replaces the table of the warehouse with every
     * window at each commit. {@link QueryCatalog#check} refuses, with the reason, the modes Spark
     * or Flink SQL cannot do; only the catalog calls this.
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
                            ? changesWithTable(context, events, false)
                            : withDataStream(context, events);
            context.toCompleteTable(changes, table, rowType(), keyColumns());
            return;
        }
        LateRowRouter<Event> late = LateEvents.router("window", lateRule(), context.scope());
        SingleOutputStreamOperator<Event> onTime =
                events.process(late).name("drop-late-rows").uid("late-rows-" + name);
        if (mode == OutputMode.UPDATE) {
            DataStream<RowData> changes =
                    api == Api.TABLE
                            ? changesWithTable(context, onTime, true)
                            : withDataStream(context, onTime);
            context.toUpdatedTable(changes, table, rowType(), keyColumns(), database);
        } else {
            DataStream<RowData> windows =
                    api == Api.TABLE ? withTable(context, onTime) : withDataStream(context, onTime);
            context.toTable(windows, EventTables.rows(table, rowType()));
        }
        context.toTable(
                onTime.getSideOutput(late.lateRows()),
                EventTables.late(table + EventTables.LATE_SUFFIX, context.runId()));
    }

    /** What the window operator writes in this query's output mode. */
    private WindowEmission emission() {
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

    private WindowAssigner<Object, TimeWindow> assigner() {
        switch (kind) {
            case SLIDING:
                return SlidingEventTimeWindows.of(size, slide);
            case SESSION:
                return EventTimeSessionWindows.withGap(size);
            default:
                return TumblingEventTimeWindows.of(size);
        }
    }

    /** DataStream API: Flink's window assigners and an aggregate function, in a keyed operator. */
    private DataStream<RowData> withDataStream(QueryContext context, DataStream<Event> onTime) {
        boolean byUser = keyColumn.equals("user_id");
        KeySelector<Event, String> key =
                byUser
                        ? e -> e.userId == null ? NULL_KEY : String.valueOf(e.userId)
                        : e -> e.eventType == null ? NULL_KEY : e.eventType;
        WindowAggregate.Emitter<String, CountAndSum> emitter =
                (start, end, k, acc) ->
                        GenericRowData.of(
                                timestampOfMicros(start),
                                timestampOfMicros(end),
                                k.equals(NULL_KEY)
                                        ? null
                                        : byUser
                                                ? (Object) Integer.valueOf(k)
                                                : StringData.fromString(k),
                                acc.events,
                                acc.roundedAmount());
        WindowAggregate.Spec<String, Event, CountAndSum> aggregate =
                new WindowAggregate.Spec<>(
                        "window",
                        assigner(),
                        new CountAndSum.Function(),
                        CountAndSum.class,
                        emitter,
                        emission(),
                        context.scope());
        if (kind == Kind.SESSION) {
            // Sessions merge: each row goes to the keyed operator as it is.
            return windowOperator(
                    onTime.keyBy(key),
                    aggregate.overRows(
                            e -> e.eventTs == null ? null : LateEvents.micros(e.eventTs)));
        }
        // Fixed windows aggregate in two phases, as Spark's partial and final HashAggregate: a
        // combiner before the shuffle folds each subtask's rows into one partial per (key,
        // window), and the keyed operator (same uid and state as the row-by-row one) merges them.
        TypeInformation<WindowPartial<String, CountAndSum>> partialType =
                WindowPartial.type(Types.STRING, Types.POJO(CountAndSum.class));
        KeyedStream<WindowPartial<String, CountAndSum>, String> partials =
                onTime.transform(
                                "combine-window-rows",
                                partialType,
                                new WindowCombiner<>(
                                        assigner(),
                                        key,
                                        new CountAndSum.Function(),
                                        emission(),
                                        WindowCombiner.DEFAULT_MAX_ENTRIES))
                        .uid("combine-window-rows-" + name)
                        .keyBy(p -> p.key, Types.STRING);
        return windowOperator(partials, aggregate.overPartials());
    }

    /**
     * The keyed window operator, under one uid whichever rows reach it (a session's rows, or the
     * combiner's partials), so its state stays where a checkpoint left it.
     */
    private <T> DataStream<RowData> windowOperator(
            KeyedStream<T, String> keyed, WindowAggregate<String, T, CountAndSum> aggregate) {
        return keyed.transform(
                        "window",
                        InternalTypeInfo.of(rowType()),
                        new WindowAggregate.Operator<>(aggregate))
                .uid("window-" + name);
    }

    private static TimestampData timestampOfMicros(long micros) {
        return TimestampData.fromEpochMillis(
                Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000);
    }

    /** Spark groups nulls together; Flink keys must not be null. */
    private static final String NULL_KEY = "\u0000null";

    /** Table API: the rows and the watermark of the same stream, and a window TVF in SQL. */
    private DataStream<RowData> withTable(QueryContext context, DataStream<Event> onTime) {
        if (kind == Kind.SESSION) {
            return sessionsWithTable(context, onTime);
        }
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        String view = eventsView(tEnv, onTime);
        Table result = tEnv.sqlQuery(windowSql(view, "rowtime", "userId", "eventType", null));
        boolean byUser = keyColumn.equals("user_id");
        return tEnv.toDataStream(result)
                .map(row -> toRowData(row, byUser))
                .returns(InternalTypeInfo.of(rowType()))
                .name("window-rows")
                .uid("window-rows-" + name)
                // Spark's watermark is never before the epoch, so a window that ends at or before
                // it has ended for every row: a sliding row there is kept only in its later
                // windows. SQL's own watermark is Flink's, which an operator may not have from
                // every input yet when a run's first rows reach it (issue 37).
                .filter(row -> row.getTimestamp(1, 3).getMillisecond() > Watermarks.INITIAL)
                .name("windows ending after the epoch")
                .uid("after-epoch-" + name);
    }

    /**
     * Table API, sessions: a process table function ({@link SessionsFunction}) in microseconds, as
     * Spark; Flink SQL's SESSION window runs on a rowtime, which has at most milliseconds. Each row
     * reaches it with its own session's end as its rowtime: Flink drops a row at or before the
     * watermark before a process table function sees it, and Spark keeps a row whose session ends
     * after the watermark.
     */
    private DataStream<RowData> sessionsWithTable(QueryContext context, DataStream<Event> onTime) {
        long gapMillis = size.toMillis();
        DataStream<Event> atSessionEnd =
                onTime.transform("at-session-end", onTime.getType(), new AtSessionEnd(gapMillis))
                        .uid("at-session-end-" + name);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        String view = eventsView(tEnv, atSessionEnd);
        String function = "sessions_" + name;
        tEnv.createTemporarySystemFunction(function, new SessionsFunction(gapMillis));
        Table result =
                tEnv.sqlQuery(
                        "SELECT window_start, window_end, userId, events, amount FROM TABLE("
                                + function
                                + "(input => TABLE "
                                + view
                                + " PARTITION BY userId, on_time => DESCRIPTOR(rowtime)))");
        return tEnv.toDataStream(result)
                .map(
                        row ->
                                (RowData)
                                        GenericRowData.of(
                                                TimestampData.fromInstant(
                                                        (Instant) row.getField(0)),
                                                TimestampData.fromInstant(
                                                        (Instant) row.getField(1)),
                                                row.getField(2),
                                                row.getField(3),
                                                row.getField(4)))
                .returns(InternalTypeInfo.of(rowType()))
                .name("session-rows")
                .uid("session-rows-" + name);
    }

    /** Sets each row's timestamp to its own session's end (ms), the watermarks unchanged. */
    static final class AtSessionEnd extends AbstractStreamOperator<Event>
            implements OneInputStreamOperator<Event, Event> {
        private static final long serialVersionUID = 1L;
        private final long gapMillis;

        AtSessionEnd(long gapMillis) {
            this.gapMillis = gapMillis;
        }

        @Override
        public void processElement(StreamRecord<Event> element) {
            output.collect(element.replace(element.getValue(), element.getTimestamp() + gapMillis));
        }
    }

    /**
     * Table API, update and complete modes: a window TVF writes a window only when it closes, so
     * the windows are a regular SQL aggregation, grouped by the window starts of each row (a table
     * function) and the key; its changelog (each group's new value) goes to the sink. Flink SQL has
     * no watermark-driven cleanup for a regular aggregation: this keeps every window's state, where
     * the DataStream API drops a window's state when the watermark closes it.
     *
     * <p>In update mode a row goes only to its windows that have not ended by the watermark (Spark
     * drops a row from each window whose end is at or before the watermark, issue 13 point 2): the
     * window starts are taken with {@code CURRENT_WATERMARK}, the watermark the late-row router
     * judged the row by. Complete mode keeps every window.
     */
    private DataStream<RowData> changesWithTable(
            QueryContext context, DataStream<Event> events, boolean dropEndedWindows) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        String view = eventsView(tEnv, events);
        String function = "window_starts_" + name;
        tEnv.createTemporarySystemFunction(
                function, new WindowStarts(size.toMillis(), slide.toMillis()));
        boolean byUser = keyColumn.equals("user_id");
        String key = byUser ? "userId" : "eventType";
        Table result =
                tEnv.sqlQuery(
                        "SELECT w.ws, "
                                + key
                                + ", COUNT(*) AS events, ROUND(SUM(amount), 2) AS amount FROM "
                                + view
                                + ", LATERAL TABLE("
                                + function
                                + (dropEndedWindows
                                        ? "(rowtime, CURRENT_WATERMARK(rowtime))"
                                        : "(rowtime)")
                                + ") AS w(ws) GROUP BY w.ws, "
                                + key);
        long sizeMillis = size.toMillis();
        return tEnv.toChangelogStream(result)
                .filter(row -> row.getKind() != RowKind.UPDATE_BEFORE)
                .map(
                        row -> {
                            long start = (Long) row.getField(0);
                            Object k = row.getField(1);
                            GenericRowData out =
                                    GenericRowData.of(
                                            TimestampData.fromEpochMillis(start),
                                            TimestampData.fromEpochMillis(start + sizeMillis),
                                            k == null
                                                    ? null
                                                    : byUser
                                                            ? k
                                                            : StringData.fromString((String) k),
                                            row.getField(2),
                                            row.getField(3));
                            out.setRowKind(
                                    row.getKind() == RowKind.DELETE
                                            ? RowKind.DELETE
                                            : RowKind.INSERT);
                            return (RowData) out;
                        })
                .returns(InternalTypeInfo.of(rowType()))
                .name("window-changes")
                .uid("window-changes-" + name);
    }

    /**
     * The stream as a temporary view with its rowtime and the source's watermark; returns its name.
     * Window columns are TIMESTAMP(3) in the session time zone, which {@code withSourceWatermark}
     * sets to UTC.
     */
    private String eventsView(StreamTableEnvironment tEnv, DataStream<Event> events) {
        String view = "events_for_" + name;
        tEnv.createTemporaryView(view, EventTables.withSourceWatermark(tEnv, events));
        return view;
    }

    /**
     * The starts of the tumbling or sliding windows that contain a timestamp, as Spark's window().
     */
    public static final class WindowStarts extends TableFunction<Long> {
        private final long size;
        private final long slide;

        public WindowStarts(long size, long slide) {
            this.size = size;
            this.slide = slide;
        }

        public void eval(@DataTypeHint("TIMESTAMP_LTZ(3)") Instant timestamp) {
            eval(timestamp, null);
        }

        /**
         * Only the windows that have not ended by Flink's watermark {@code watermark} (null: none
         * yet, Spark's is then the epoch): Spark's watermark is Flink's plus one, and a window has
         * ended when its end is at or before Spark's.
         */
        public void eval(
                @DataTypeHint("TIMESTAMP_LTZ(3)") Instant timestamp,
                @DataTypeHint("TIMESTAMP_LTZ(3)") Instant watermark) {
            if (timestamp == null) {
                return;
            }
            long sparkWatermark =
                    watermark == null
                            ? Watermarks.INITIAL
                            : Watermarks.fromFlink(watermark.toEpochMilli());
            long t = timestamp.toEpochMilli();
            for (long start = Math.floorDiv(t, slide) * slide; start > t - size; start -= slide) {
                if (!Watermarks.isLate(start + size, sparkWatermark)) {
                    collect(start);
                }
            }
        }
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
     * computes them in a batch: rows by user in time order (microseconds), a row within the gap of
     * the session so far (at or before its end) joins it, the sums in time order; rows in this
     * query's table type. For {@code recompute}; rows without event time belong to no session.
     */
    public List<RowData> sessionRows(List<RowData> events) {
        if (kind != Kind.SESSION) {
            throw new IllegalStateException(name + " has no sessions");
        }
        int user = EventTables.EVENT_ROW.getFieldIndex("user_id");
        int ts = EventTables.EVENT_ROW.getFieldIndex("event_ts");
        int amount = EventTables.EVENT_ROW.getFieldIndex("amount");
        long gap = size.toMillis() * 1000;
        List<long[]> order = new ArrayList<>(); // (index, micros)
        for (int i = 0; i < events.size(); i++) {
            RowData e = events.get(i);
            if (!e.isNullAt(ts)) {
                TimestampData t = e.getTimestamp(ts, EventTables.EVENT_TS_PRECISION);
                order.add(
                        new long[] {
                            i, t.getMillisecond() * 1000 + t.getNanoOfMillisecond() / 1000
                        });
            }
        }
        Comparator<long[]> byUser =
                Comparator.comparing(
                        (long[] r) ->
                                events.get((int) r[0]).isNullAt(user)
                                        ? null
                                        : events.get((int) r[0]).getInt(user),
                        Comparator.nullsFirst(Comparator.<Integer>naturalOrder()));
        order.sort(byUser.thenComparingLong(r -> r[1]));
        List<RowData> sessions = new ArrayList<>();
        Integer current = null;
        long start = 0;
        long end = Long.MIN_VALUE;
        CountAndSum acc = null;
        for (long[] r : order) {
            RowData e = events.get((int) r[0]);
            Integer u = e.isNullAt(user) ? null : e.getInt(user);
            if (acc == null || !Objects.equals(u, current) || r[1] > end) {
                if (acc != null) {
                    sessions.add(sessionRow(start, end, current, acc));
                }
                current = u;
                start = r[1];
                end = r[1] + gap;
                acc = new CountAndSum();
            } else {
                end = Math.max(end, r[1] + gap);
            }
            acc.events++;
            if (!e.isNullAt(amount)) {
                acc.amount += e.getDouble(amount);
                acc.hasAmount = true;
            }
        }
        if (acc != null) {
            sessions.add(sessionRow(start, end, current, acc));
        }
        return sessions;
    }

    private static RowData sessionRow(long start, long end, Integer user, CountAndSum acc) {
        return GenericRowData.of(
                timestampOfMicros(start),
                timestampOfMicros(end),
                user,
                acc.events,
                acc.roundedAmount());
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
