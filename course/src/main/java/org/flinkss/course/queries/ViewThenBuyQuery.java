package org.flinkss.course.queries;

import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;

import org.flinkss.course.event.Event;
import org.flinkss.course.operators.LateEvents;
import org.flinkss.course.operators.ViewThenBuyFunction;
import org.flinkss.course.operators.ViewThenBuyJoin;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.operators.LateRowRouter;
import org.flinkss.runtime.operators.NullableKey;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.table.TableDef;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Topic 11.09's stream-stream join: views and buys of {@code events_bronze}, watermarks of 10
 * minutes on both, the same user, {@code buy.event_ts BETWEEN view.event_ts AND view.event_ts + 5
 * minutes}, into {@code view_then_buy (user_id, view_id, buy_id)}; with {@code --outer}, the left
 * outer join into {@code view_then_buy_left}, where a view without a buy appears once with a null
 * {@code buy_id} once the watermark has passed {@code view.event_ts + 5 minutes}.
 *
 * <p>Both sides come from one read of bronze, filtered then watermarked each (Spark's two {@code
 * withWatermark} nodes): the join's watermark is the minimum of the views' and the buys'.
 * DataStream: a keyed co-process interval join; Table API: an interval join in SQL (inner) or a
 * process table function (outer, for Spark's timing of the null rows).
 */
public final class ViewThenBuyQuery implements Query {

    public static final Duration BOUND = Duration.ofMinutes(5);

    static final RowType ROW =
            TableDef.columns(
                    List.of("user_id", "view_id", "buy_id"),
                    new IntType(),
                    new BigIntType(),
                    new BigIntType());

    private final boolean outer;
    private final Api api;

    public ViewThenBuyQuery(boolean outer, Api api) {
        this.outer = outer;
        this.api = api;
    }

    /** The catalog's entry: the inner join, or the left outer join with its own checkpoint. */
    private QueryCatalog entry() {
        return outer ? QueryCatalog.VIEW_THEN_BUY_OUTER : QueryCatalog.VIEW_THEN_BUY;
    }

    @Override
    public String name() {
        return entry().queryName();
    }

    public String table() {
        return entry().table();
    }

    @Override
    public void build(QueryContext context) {
        context.stateful(
                "join["
                        + api.text()
                        + "]: "
                        + (outer ? "left outer" : "inner")
                        + " view then buy within "
                        + BOUND.toMinutes()
                        + " min, watermark "
                        + QueryCatalog.WATERMARK_DELAY.toMinutes()
                        + " min"
                        // State in microseconds (issue 13): the range is compared on them and
                        // the join's state holds them, so a checkpoint of the millisecond layout
                        // is refused with a 'reset' hint instead of restoring times in ms.
                        + ", microseconds"
                        // Issue 37: users as nullable keys (a null user was -2147483648).
                        + (api == Api.TABLE ? "" : ", nullable keys"));
        DataStream<Event> events =
                context.tableStreamWithWatermarks(
                                EventTables.BRONZE,
                                "event_ts",
                                List.of(
                                        EventWatermarks.afterType("views", "view"),
                                        EventWatermarks.afterType("buys", "buy")))
                        .map(EventTables::fromRow)
                        .returns(Event.class)
                        .name("events")
                        .uid("events-" + name())
                        .filter(
                                (FilterFunction<Event>)
                                        e ->
                                                "view".equals(e.eventType)
                                                        || ("buy".equals(e.eventType)
                                                                && e.userId != null))
                        // A view without a user is written unmatched, as Spark does; a buy
                        // without one can match nothing.
                        .name("views and buys")
                        .uid("views-and-buys-" + name());
        LateRowRouter<Event> late =
                LateEvents.router("join", LateRowRouter.rowRule(), context.scope());
        SingleOutputStreamOperator<Event> onTime =
                events.process(late).name("drop-late-rows").uid("late-rows-" + name());
        DataStream<RowData> joined =
                api == Api.TABLE ? withTable(context, onTime) : withDataStream(context, onTime);
        context.toTable(joined, EventTables.rows(table(), ROW));
        context.toTable(
                onTime.getSideOutput(late.lateRows()),
                EventTables.late(table() + EventTables.LATE_SUFFIX, context.runId()));
    }

    private DataStream<RowData> withDataStream(QueryContext context, DataStream<Event> onTime) {
        DataStream<Event> views =
                onTime.filter((FilterFunction<Event>) e -> "view".equals(e.eventType))
                        .name("views")
                        .uid("views-" + name());
        DataStream<Event> buys =
                onTime.filter((FilterFunction<Event>) e -> "buy".equals(e.eventType))
                        .name("buys")
                        .uid("buys-" + name());
        // Keys say null without a stand-in value: no user id collides with a view's missing one.
        return views.keyBy(e -> NullableKey.of(e.userId), NullableKey.TYPE)
                .connect(buys.keyBy(e -> NullableKey.of(e.userId), NullableKey.TYPE))
                .process(new ViewThenBuyJoin(BOUND.toMillis(), outer, context.scope()))
                .returns(InternalTypeInfo.of(ROW))
                .name("join")
                .uid("join-" + name());
    }

    private DataStream<RowData> withTable(QueryContext context, DataStream<Event> onTime) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        tEnv.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        Table events = EventTables.withSourceWatermark(tEnv, onTime);
        String view = "view_buy_" + (outer ? "outer" : "inner");
        tEnv.createTemporaryView(view, events);
        Table result;
        if (outer) {
            tEnv.createTemporarySystemFunction(
                    "view_then_buy", new ViewThenBuyFunction(BOUND.toMillis()));
            result =
                    tEnv.sqlQuery(
                            "SELECT userId, view_id, buy_id FROM TABLE(view_then_buy(input => TABLE"
                                    + " "
                                    + view
                                    + " PARTITION BY userId, on_time => DESCRIPTOR(rowtime)))");
        } else {
            result =
                    tEnv.sqlQuery(
                            "SELECT v.userId, v.eventId, b.eventId"
                                    + " FROM "
                                    + view
                                    + " v JOIN "
                                    + view
                                    + " b ON v.userId = b.userId"
                                    + " AND b.rowtime BETWEEN v.rowtime AND v.rowtime + INTERVAL '"
                                    + BOUND.toMinutes()
                                    + "' MINUTE"
                                    // The interval join runs on the rows' milliseconds (a
                                    // rowtime has at most 3 digits); the range on microseconds
                                    // (Spark's) lies within it and decides.
                                    + " AND b.eventTs BETWEEN v.eventTs AND v.eventTs + INTERVAL '"
                                    + BOUND.toMinutes()
                                    + "' MINUTE"
                                    + " WHERE v.eventType = 'view' AND b.eventType = 'buy'");
        }
        return tEnv.toDataStream(result)
                .map(ViewThenBuyQuery::toRowData)
                .returns(InternalTypeInfo.of(ROW))
                .name("joined")
                .uid("joined-" + name());
    }

    private static RowData toRowData(Row row) {
        return GenericRowData.of(row.getField(0), row.getField(1), row.getField(2));
    }
}
