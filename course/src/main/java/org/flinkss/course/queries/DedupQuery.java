package org.flinkss.course.queries;

import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventSerializer;
import org.flinkss.course.operators.DedupWithinWatermarkFunction;
import org.flinkss.course.operators.LateEvents;
import org.flinkss.course.operators.NoEventTime;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.operators.DedupWithinWatermark;
import org.flinkss.runtime.operators.LateRowRouter;
import org.flinkss.runtime.operators.NullableKey;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.source.ReadOrder;
import org.flinkss.runtime.source.WatermarkNode;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Topic 11.08's {@code dropDuplicatesWithinWatermark(["event_id"])} with a 10-minute watermark:
 * {@code events_bronze} to {@code events_dedup} (query {@code dedup}); with the filter {@code
 * amount IS NOT NULL AND amount >= 0} before it, the pipeline's silver layer ({@code silver}:
 * {@code events_bronze} to {@code events_silver}). In the DataStream API a keyed process function;
 * in the Table API a process table function over the same stream and watermark. Late rows go to
 * {@code <table>_late}.
 */
public final class DedupQuery implements Query {

    /**
     * The width of the expiry buckets of {@link DedupWithinWatermark}: the keys of one key group
     * whose expiries fall on the same day share one timer (with the course's events ten seconds
     * apart and 128 key groups, about 70 keys; an hour would leave about three a timer). Eviction
     * is exact whatever the width; a watermark inside a bucket reads the bucket's keys of its key
     * groups, a day of keys, once per batch.
     */
    static final Duration EXPIRY_BUCKET = Duration.ofDays(1);

    private final String name;
    private final String source;
    private final String table;
    private final boolean validAmountsOnly;
    private final Api api;

    private DedupQuery(QueryCatalog entry, String source, boolean validAmountsOnly, Api api) {
        this.name = entry.queryName();
        this.source = source;
        this.table = entry.table();
        this.validAmountsOnly = validAmountsOnly;
        this.api = api;
    }

    public static DedupQuery dedup(Api api) {
        return new DedupQuery(QueryCatalog.DEDUP, EventTables.BRONZE, false, api);
    }

    /** The course's silver layer: valid amounts, deduplicated within the watermark. */
    public static DedupQuery silver(Api api) {
        return new DedupQuery(QueryCatalog.SILVER, EventTables.BRONZE, true, api);
    }

    @Override
    public String name() {
        return name;
    }

    public String table() {
        return table;
    }

    @Override
    public void build(QueryContext context) {
        context.stateful(
                "dedupe["
                        + api.text()
                        + "]: event_id within watermark "
                        + QueryCatalog.WATERMARK_DELAY.toMinutes()
                        + " min"
                        // State layout 2 (DataStream): keyed by the long event_id, not its text.
                        // The identity changes with it, so a checkpoint of layout 1 is refused
                        // with a 'reset' hint instead of failing in Flink's restore.
                        // Layout 3: keys forgotten through an expiry index (one timer per
                        // bucket and key group) instead of a timer per key.
                        // Layout 4 (issue 37): nullable keys; a null event_id was the key
                        // Long.MIN_VALUE, which a real id shared.
                        + (api == Api.TABLE ? "" : ", long keys, expiry buckets, nullable keys"));
        // Silver filters before its withWatermark: invalid rows do not move its watermark.
        DataStream<Event> events =
                context.tableStreamWithWatermarks(
                                source,
                                "event_ts",
                                List.of(
                                        validAmountsOnly
                                                ? EventWatermarks.afterValidAmounts()
                                                : WatermarkNode.<RowData>allRows(
                                                        QueryCatalog.WATERMARK_DELAY)),
                                // Rows of a key reach dedupe in the table's order, so the copy
                                // kept is the first in it, as Spark keeps the first copy of its
                                // scan (issue 37): the same at any parallelism, in both APIs.
                                ReadOrder.ONE_READER)
                        .map(EventTables::fromRow)
                        // Events cross the keyBy to dedupe with a serializer without reflection;
                        // the Table API needs the POJO's fields.
                        .returns(
                                api == Api.TABLE
                                        ? TypeInformation.of(Event.class)
                                        : EventSerializer.TYPE)
                        .name("events")
                        .uid("events-" + name);
        if (validAmountsOnly) {
            events =
                    events.filter((FilterFunction<Event>) e -> e.amount != null && e.amount >= 0)
                            .name("amount IS NOT NULL AND amount >= 0")
                            .uid("valid-amounts-" + name);
        }
        // A row without event time is never late for Spark's dedup: it is kept.
        LateRowRouter<Event> late =
                LateEvents.router("dedupe", LateRowRouter.rowRule(), context.scope())
                        .keepingRowsWithoutEventTime();
        SingleOutputStreamOperator<Event> onTime =
                events.process(late).name("drop-late-rows").uid("late-rows-" + name);
        DataStream<Event> deduplicated =
                api == Api.TABLE
                        ? withTable(context, onTime)
                        : onTime.keyBy(e -> NullableKey.of(e.eventId), NullableKey.TYPE)
                                .transform(
                                        "dedupe",
                                        onTime.getType(),
                                        new DedupWithinWatermark<NullableKey, Event>(
                                                "dedupe",
                                                QueryCatalog.WATERMARK_DELAY.toMillis(),
                                                EXPIRY_BUCKET.toMillis(),
                                                context.scope(),
                                                e ->
                                                        e.eventTs == null
                                                                ? null
                                                                : LateEvents.micros(e.eventTs)))
                                .uid("dedupe-" + name);
        context.toTable(deduplicated, EventTables.events(table));
        context.toTable(
                onTime.getSideOutput(late.lateRows()),
                EventTables.late(table + EventTables.LATE_SUFFIX, context.runId()));
    }

    private DataStream<Event> withTable(QueryContext context, DataStream<Event> onTime) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        tEnv.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        tEnv.createTemporarySystemFunction(
                "dedup_within_watermark", DedupWithinWatermarkFunction.class);
        Table events =
                EventTables.withSourceWatermark(
                        tEnv,
                        onTime.transform(
                                        "no event time as " + NoEventTime.TIME,
                                        onTime.getType(),
                                        new NoEventTime<Event>())
                                .uid("no-event-time-" + name));
        tEnv.createTemporaryView("events_for_" + name, events);
        Table deduplicated =
                tEnv.sqlQuery(
                        "SELECT eventId, userId, eventType, eventTs, amount FROM"
                                + " TABLE(dedup_within_watermark(input => TABLE events_for_"
                                + name
                                + " PARTITION BY eventId, delayMillis => CAST("
                                + QueryCatalog.WATERMARK_DELAY.toMillis()
                                + " AS BIGINT)"
                                + ", on_time => DESCRIPTOR(rowtime)))");
        return tEnv.toDataStream(deduplicated)
                .map(DedupQuery::toEvent)
                .returns(Event.class)
                .name("deduplicated")
                .uid("deduplicated-" + name);
    }

    private static Event toEvent(Row row) {
        return new Event(
                (Long) row.getField(0),
                (Integer) row.getField(1),
                (String) row.getField(2),
                (Instant) row.getField(3),
                (Double) row.getField(4));
    }
}
