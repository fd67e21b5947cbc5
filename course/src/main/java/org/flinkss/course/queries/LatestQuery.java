package org.flinkss.course.queries;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.source.ReadOrder;

import javax.annotation.Nullable;

import java.util.List;

/**
 * Topic 11.13's {@code foreachBatch(upsert)}: {@code events_bronze} as a stream, merged into {@code
 * events_latest} on {@code event_id} (insert when new, update when matched), one commit per batch,
 * recorded with the batch id so that a replayed batch changes nothing. The table is the Delta table
 * of the warehouse, as the course's {@code MERGE INTO events_latest} writes it (one {@code MERGE}
 * commit per batch, matched rows rewritten copy-on-write), or, given a database ({@code
 * --jdbc-url}), the SQL table of that name (one transaction per batch). The table has the event's
 * columns, also when bronze has a rescued data column.
 *
 * <p>Several rows with one {@code event_id} in one batch (from several bronze versions, or files):
 * the last in bronze's order wins (its versions, the files of each as its log adds them, their
 * rows), as a later batch would have written it. Spark's MERGE fails on such a batch instead; the
 * project keeps the newest row, the same run after run, at any parallelism (issue 38).
 */
public final class LatestQuery implements Query {

    public static final String TABLE = QueryCatalog.LATEST.table();

    /**
     * Names the Delta path in the query's identity: a checkpoint of the SQL path (which wrote
     * another table under the same name) is refused by it, and the other way round.
     */
    static final String DELTA_MERGE = QueryCatalog.deltaMerge(TABLE);

    @Nullable private final Database database;

    /** Into the Delta table {@code events_latest} of the warehouse. */
    public LatestQuery() {
        this.database = null;
    }

    /** Into the SQL table {@code events_latest} of {@code database}. */
    public LatestQuery(Database database) {
        this.database = database;
    }

    @Override
    public String name() {
        return QueryCatalog.LATEST.queryName();
    }

    @Override
    public void build(QueryContext context) {
        // A batch's rows reach the upsert in bronze's order, so that of several rows with one
        // event_id the last in the table wins, as a later batch would (docs/semantics.md).
        DataStream<RowData> rows =
                context.tableStreamWithWatermarks(
                        EventTables.BRONZE, null, List.of(), ReadOrder.ONE_READER);
        if (!context.warehouse().rowType(EventTables.BRONZE).equals(EventTables.EVENT_ROW)) {
            // A bronze with a rescued data column: the table keeps the event's columns.
            rows =
                    rows.map(row -> EventTables.toRow(EventTables.fromRow(row)))
                            .returns(InternalTypeInfo.of(EventTables.EVENT_ROW))
                            .name("event columns")
                            .uid("event-columns");
        }
        if (database != null) {
            context.toUpsertTable(rows, TABLE, EventTables.EVENT_ROW, "event_id", database);
        } else {
            context.stateful(DELTA_MERGE);
            context.toMergedTable(rows, TABLE, EventTables.EVENT_ROW, List.of("event_id"));
        }
    }
}
