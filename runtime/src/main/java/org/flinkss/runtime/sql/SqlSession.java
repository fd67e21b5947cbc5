package org.flinkss.runtime.sql;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.flinkss.runtime.operators.LateRowRouter;
import org.flinkss.runtime.query.QueryContext;

import javax.annotation.Nullable;

import java.nio.file.Path;

/**
 * The SQL file being planned on this thread, for the table connectors that Flink's factory
 * discovery creates: the {@link QueryContext} their sources and sinks are built on, and what the
 * plan's stateful operators make of late rows. Flink creates connectors through the service loader
 * with no way to hand them the query, and plans on the thread that calls it, so the session is a
 * thread-local, open while {@link SqlQuery#build} runs.
 */
@Internal
public final class SqlSession implements AutoCloseable {

    private static final ThreadLocal<SqlSession> CURRENT = new ThreadLocal<>();

    private final QueryContext context;
    // The script's local file as SqlScript read it (errors name it), not a storage location.
    private final Path file;
    @Nullable private PlanShape shape;

    private SqlSession(QueryContext context, Path file) {
        this.context = context;
        this.file = file;
    }

    static SqlSession open(QueryContext context, Path file) {
        if (CURRENT.get() != null) {
            throw new IllegalStateException("a SQL file is already being planned on this thread");
        }
        SqlSession session = new SqlSession(context, file);
        CURRENT.set(session);
        return session;
    }

    /**
     * The session of the SQL file being planned; refused outside {@code sql --file}, naming the
     * connector.
     */
    public static SqlSession current(String connector) {
        SqlSession session = CURRENT.get();
        if (session == null) {
            throw new IllegalStateException(
                    "the '"
                            + connector
                            + "' table connector runs micro-batches of a query: use it in a file"
                            + " run by 'flinkss sql --file FILE.sql'");
        }
        return session;
    }

    public QueryContext context() {
        return context;
    }

    public Path file() {
        return file;
    }

    void shape(PlanShape planned) {
        this.shape = planned;
    }

    /**
     * The rows of source table {@code table} that its stateful operator takes: rows that Spark's
     * watermark drops for that operator go to no table but are counted in progress as its {@code
     * numRowsDroppedByWatermark} ({@link LateRowRouter}), and rows without event time do not reach
     * a window (uncounted, as in Spark). Rows that reach no stateful operator pass as they are.
     *
     * @param rowType the rows' type
     * @param rowtime the index of the event-time column in {@code rowType}, -1 for none
     */
    public DataStream<RowData> onTime(
            String table, DataStream<RowData> rows, RowType rowType, int rowtime) {
        PlanShape.Lateness lateness = shape == null ? null : shape.lateness(table);
        if (lateness == null || rowtime < 0) {
            return rows;
        }
        int precision = LogicalTypeChecks.getPrecision(rowType.getTypeAt(rowtime));
        DataStream<RowData> timed = rows;
        if (!lateness.keepsRowsWithoutTime()) {
            // Spark's window() filters out rows without event time before its aggregation: they
            // are in no window, and not counted as dropped by the watermark.
            timed =
                    rows.filter(row -> !row.isNullAt(rowtime))
                            .returns(InternalTypeInfo.of(rowType))
                            .name("with event time " + table)
                            .uid("with-event-time-" + table);
        }
        LateRowRouter<RowData> router =
                new LateRowRouter<>(
                        lateness.operator(),
                        lateness.rule(),
                        row ->
                                row.isNullAt(rowtime)
                                        ? null
                                        : micros(row.getTimestamp(rowtime, precision)),
                        InternalTypeInfo.of(rowType),
                        context.scope());
        if (lateness.keepsRowsWithoutTime()) {
            router = router.keepingRowsWithoutEventTime();
        }
        return timed.process(router)
                .returns(InternalTypeInfo.of(rowType))
                .name("drop-late-rows " + table)
                .uid("late-rows-" + table);
    }

    private static long micros(TimestampData t) {
        return Math.addExact(
                Math.multiplyExact(t.getMillisecond(), 1000L), t.getNanoOfMillisecond() / 1000);
    }

    @Override
    public void close() {
        CURRENT.remove();
    }
}
