package org.flinkss.course.queries;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.sink.jdbc.Database;

/**
 * Topic 11.13's {@code foreachBatch(upsert)}: {@code events_bronze} as a stream, merged into the
 * SQL table {@code events_latest} on {@code event_id} (insert when new, update when matched), one
 * transaction per batch, recorded with the batch id so that a replayed batch changes nothing. The
 * table has the event's columns, also when bronze has a rescued data column.
 */
public final class LatestQuery implements Query {

    public static final String TABLE = QueryCatalog.LATEST.table();

    private final Database database;

    public LatestQuery(Database database) {
        this.database = database;
    }

    @Override
    public String name() {
        return QueryCatalog.LATEST.queryName();
    }

    @Override
    public void build(QueryContext context) {
        DataStream<RowData> rows = context.tableStream(EventTables.BRONZE, null, null);
        if (!context.warehouse().rowType(EventTables.BRONZE).equals(EventTables.EVENT_ROW)) {
            // A bronze with a rescued data column: the SQL table keeps the event's columns.
            rows =
                    rows.map(row -> EventTables.toRow(EventTables.fromRow(row)))
                            .returns(InternalTypeInfo.of(EventTables.EVENT_ROW))
                            .name("event columns")
                            .uid("event-columns");
        }
        context.toUpsertTable(rows, TABLE, EventTables.EVENT_ROW, "event_id", database);
    }
}
