package org.flinkss.jobs;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;

import org.flinkss.jdbc.Database;
import org.flinkss.query.Query;
import org.flinkss.query.QueryContext;
import org.flinkss.table.EventTables;

/**
 * Topic 11.13's {@code foreachBatch(upsert)}: {@code events_bronze} as a stream, merged into the
 * SQL table {@code events_latest} on {@code event_id} (insert when new, update when matched), one
 * transaction per batch, recorded with the batch id so that a replayed batch changes nothing.
 */
public final class LatestQuery implements Query {

    public static final String TABLE = "events_latest";

    private final Database database;

    public LatestQuery(Database database) {
        this.database = database;
    }

    @Override
    public String name() {
        return "latest";
    }

    @Override
    public void build(QueryContext context) {
        DataStream<RowData> rows = context.tableStream(EventTables.BRONZE, null, null);
        context.toUpsertTable(rows, TABLE, EventTables.EVENT_ROW, "event_id", database);
    }
}
