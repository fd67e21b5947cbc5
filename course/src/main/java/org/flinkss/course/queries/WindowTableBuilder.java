package org.flinkss.course.queries;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.RowKind;

import org.flinkss.course.event.Event;
import org.flinkss.course.operators.SessionsFunction;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.time.Watermarks;

import java.time.Instant;

/**
 * A {@link WindowQuery} in the Table API: the rows and the watermark of the runtime's stream as a
 * view ({@link EventTables#withSourceWatermark}), windows in SQL, and the result back to a stream
 * for the runtime's sinks. The DataStream API's twin is {@link WindowStreamBuilder}; both stand
 * behind the same late-row router and write identical tables.
 */
final class WindowTableBuilder {

    private final WindowQuery query;
    private final QueryContext context;

    WindowTableBuilder(WindowQuery query, QueryContext context) {
        this.query = query;
        this.context = context;
    }

    /**
     * Append mode: the rows and the watermark of the same stream, and a window TVF in SQL ({@link
     * WindowQuery#windowSql}); each window once, when the watermark closes it.
     */
    DataStream<RowData> windows(DataStream<Event> onTime) {
        if (query.kind() == WindowQuery.Kind.SESSION) {
            return sessions(onTime);
        }
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        String view = eventsView(tEnv, onTime);
        Table result = tEnv.sqlQuery(query.windowSql(view, "rowtime", "userId", "eventType", null));
        boolean byUser = query.byUser();
        return tEnv.toDataStream(result)
                .map(row -> WindowQuery.toRowData(row, byUser))
                .returns(InternalTypeInfo.of(query.rowType()))
                .name("window-rows")
                .uid("window-rows-" + query.name())
                // Spark's watermark is never before the epoch, so a window that ends at or before
                // it has ended for every row: a sliding row there is kept only in its later
                // windows. SQL's own watermark is Flink's: the source holds a run's first batch,
                // and since issue 31 a batch restored in the middle of its reading, until every
                // reader's starting watermark is in a checkpoint, which covers the failover case
                // this stateless filter was kept for; it stays until the course's window ITCases
                // at parallelism 2 have been run without it.
                .filter(row -> row.getTimestamp(1, 3).getMillisecond() > Watermarks.INITIAL)
                .name("windows ending after the epoch")
                .uid("after-epoch-" + query.name());
    }

    /**
     * Sessions: a process table function ({@link SessionsFunction}) in microseconds, as Spark;
     * Flink SQL's SESSION window runs on a rowtime, which has at most milliseconds. Each row
     * reaches it with its own session's end as its rowtime: Flink drops a row at or before the
     * watermark before a process table function sees it, and Spark keeps a row whose session ends
     * after the watermark.
     */
    private DataStream<RowData> sessions(DataStream<Event> onTime) {
        long gapMillis = query.size().toMillis();
        DataStream<Event> atSessionEnd =
                onTime.transform("at-session-end", onTime.getType(), new AtSessionEnd(gapMillis))
                        .uid("at-session-end-" + query.name());
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        String view = eventsView(tEnv, atSessionEnd);
        String function = "sessions_" + query.name();
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
                .returns(InternalTypeInfo.of(query.rowType()))
                .name("session-rows")
                .uid("session-rows-" + query.name());
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
     * Update and complete modes: a window TVF writes a window only when it closes, so the windows
     * are a regular SQL aggregation, grouped by the window starts of each row (a table function)
     * and the key; its changelog (each group's new value) goes to the sink. Flink SQL has no
     * watermark-driven cleanup for a regular aggregation: this keeps every window's state, where
     * the DataStream API drops a window's state when the watermark closes it.
     *
     * <p>In update mode a row goes only to its windows that have not ended by the watermark (Spark
     * drops a row from each window whose end is at or before the watermark, issue 13 point 2): the
     * window starts are taken with {@code CURRENT_WATERMARK}, the watermark the late-row router
     * judged the row by. Complete mode keeps every window.
     */
    DataStream<RowData> changes(DataStream<Event> events, boolean dropEndedWindows) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        String view = eventsView(tEnv, events);
        String function = "window_starts_" + query.name();
        tEnv.createTemporarySystemFunction(
                function, new WindowStarts(query.size().toMillis(), query.slide().toMillis()));
        boolean byUser = query.byUser();
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
        long sizeMillis = query.size().toMillis();
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
                .returns(InternalTypeInfo.of(query.rowType()))
                .name("window-changes")
                .uid("window-changes-" + query.name());
    }

    /**
     * The stream as a temporary view with its rowtime and the source's watermark; returns its name.
     * Window columns are TIMESTAMP(3) in the session time zone, which {@code withSourceWatermark}
     * sets to UTC.
     */
    private String eventsView(StreamTableEnvironment tEnv, DataStream<Event> events) {
        String view = "events_for_" + query.name();
        tEnv.createTemporaryView(view, EventTables.withSourceWatermark(tEnv, events));
        return view;
    }
}
