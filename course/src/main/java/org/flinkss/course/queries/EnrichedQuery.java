package org.flinkss.course.queries;

import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

import org.flinkss.course.event.Event;
import org.flinkss.course.tables.Customers;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.table.StaticTable;
import org.flinkss.runtime.table.TableDef;

import java.time.Instant;
import java.util.List;

/**
 * Topic 11.09's stream-static join: {@code events_bronze} as a stream, left-joined on {@code
 * user_id = customer_id} with the static {@code customers} table, into {@code events_enriched}.
 * Stateless, as in Spark; the static side is read fresh for each batch (DataStream: after every
 * commit; Table API: a lookup function that rereads changed files), so replacing {@code customers}
 * between runs changes the countries of later rows only.
 */
public final class EnrichedQuery implements Query {

    public static final String TABLE = QueryCatalog.ENRICHED.table();

    static final RowType ROW =
            TableDef.columns(
                    List.of("event_id", "user_id", "event_type", "event_ts", "amount", "country"),
                    new BigIntType(),
                    new IntType(),
                    VarCharType.STRING_TYPE,
                    new LocalZonedTimestampType(EventTables.EVENT_TS_PRECISION),
                    new DoubleType(),
                    VarCharType.STRING_TYPE);

    /** Where {@code customers} is: a local warehouse or one on an object store. */
    private final Path warehouse;

    private final Api api;

    public EnrichedQuery(Path warehouse, Api api) {
        this.warehouse = warehouse;
        this.api = api;
    }

    @Override
    public String name() {
        return QueryCatalog.ENRICHED.queryName();
    }

    @Override
    public void build(QueryContext context) {
        DataStream<Event> events =
                context.tableStream(EventTables.BRONZE, "event_ts", null)
                        .map(EventTables::fromRow)
                        .returns(Event.class)
                        .name("events")
                        .uid("events-enriched");
        DataStream<RowData> enriched =
                api == Api.TABLE
                        ? withTable(context, events)
                        : events.process(
                                        new Enrich(
                                                new StaticTable(
                                                        warehouse, Customers.TABLE, "customer_id")))
                                .returns(InternalTypeInfo.of(ROW))
                                .name("left join customers")
                                .uid("join-customers");
        context.toTable(enriched, EventTables.rows(TABLE, ROW));
    }

    static RowData row(Event e, String country) {
        return GenericRowData.of(
                e.eventId,
                e.userId,
                e.eventType == null ? null : StringData.fromString(e.eventType),
                e.eventTs == null ? null : TimestampData.fromInstant(e.eventTs),
                e.amount,
                country == null ? null : StringData.fromString(country));
    }

    /** The DataStream join: reads customers again after each committed batch if it changed. */
    static final class Enrich extends ProcessFunction<Event, RowData>
            implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final StaticTable customers;
        private transient boolean stale;

        Enrich(StaticTable customers) {
            this.customers = customers;
        }

        @Override
        public void processElement(Event e, Context ctx, Collector<RowData> out) {
            if (stale) {
                customers.refresh();
                stale = false;
            }
            RowData customer = customers.get(e.userId);
            out.collect(
                    row(
                            e,
                            customer == null
                                    ? null
                                    : (String) customers.column(customer, "country")));
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            stale = true;
        }
    }

    /**
     * The Table API's lookup: {@code country_of(user_id)}, rereading customers when its files
     * change.
     */
    public static final class CountryOf extends ScalarFunction {
        private static final long serialVersionUID = 1L;
        private final StaticTable customers;
        private transient long checkedAt;

        public CountryOf(StaticTable customers) {
            this.customers = customers;
        }

        @Override
        public void open(FunctionContext context) {
            customers.refresh();
            checkedAt = System.currentTimeMillis();
        }

        public String eval(Integer userId) {
            long now = System.currentTimeMillis();
            if (now - checkedAt > 500) {
                customers.refresh();
                checkedAt = now;
            }
            RowData customer = customers.get(userId);
            return customer == null ? null : (String) customers.column(customer, "country");
        }
    }

    private DataStream<RowData> withTable(QueryContext context, DataStream<Event> events) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(context.env());
        tEnv.createTemporarySystemFunction(
                "country_of",
                new CountryOf(new StaticTable(warehouse, Customers.TABLE, "customer_id")));
        Table table = tEnv.fromDataStream(events);
        tEnv.createTemporaryView("events_to_enrich", table);
        Table enriched =
                tEnv.sqlQuery(
                        "SELECT eventId, userId, eventType, eventTs, amount, country_of(userId) AS"
                                + " country FROM events_to_enrich");
        return tEnv.toDataStream(enriched)
                .map(EnrichedQuery::fromRow)
                .returns(InternalTypeInfo.of(ROW))
                .name("enriched rows")
                .uid("enriched-rows");
    }

    private static RowData fromRow(Row r) {
        Event e =
                new Event(
                        (Long) r.getField(0),
                        (Integer) r.getField(1),
                        (String) r.getField(2),
                        (Instant) r.getField(3),
                        (Double) r.getField(4));
        return row(e, (String) r.getField(5));
    }
}
