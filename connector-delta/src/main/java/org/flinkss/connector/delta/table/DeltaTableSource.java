package org.flinkss.connector.delta.table;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.delta.DeltaPlanner;
import org.flinkss.runtime.source.delta.DeltaRowFormat;
import org.flinkss.runtime.sql.MicroBatchTableSource;
import org.flinkss.runtime.sql.SqlSession;
import org.flinkss.runtime.sql.SqlWatermark;

import javax.annotation.Nullable;

/**
 * A Delta table as a stream of micro-batches, Spark's {@code readStream.format("delta")}: the
 * table's snapshot when the query first reads it, then the files each later version adds ({@link
 * DeltaPlanner}), at most {@code max-files-per-trigger} files per batch. Its {@code WATERMARK} is
 * Spark's {@code withWatermark}: the runtime's micro-batch watermark, not Flink's per-record one,
 * so the planner's watermark assigner is taken over ({@link MicroBatchTableSource}) and dropped.
 */
final class DeltaTableSource extends MicroBatchTableSource {

    private final String sqlTable;
    private final DeltaLocation location;
    private final RowType declared;
    private final RowType tableRows;
    private final int[] columns;
    @Nullable private final SqlWatermark watermark;
    @Nullable private final ReadLimit limit;

    DeltaTableSource(
            String sqlTable,
            DeltaLocation location,
            RowType declared,
            RowType tableRows,
            int[] columns,
            @Nullable SqlWatermark watermark,
            @Nullable ReadLimit limit) {
        this.sqlTable = sqlTable;
        this.location = location;
        this.declared = declared;
        this.tableRows = tableRows;
        this.columns = columns;
        this.watermark = watermark;
        this.limit = limit;
    }

    @Override
    protected DataStream<RowData> rows() {
        SqlSession session = SqlSession.current(DeltaTableFactory.IDENTIFIER);
        QueryContext query = session.context();
        int rowtime = watermark == null ? -1 : tableRows.getFieldIndex(watermark.column());
        String table = location.table();
        DataStream<RowData> rows =
                query.source(
                        table,
                        "DeltaSource[" + location.uri() + "]",
                        new DeltaPlanner(table, location.warehouse().folder(table)),
                        new DeltaRowFormat(tableRows, rowtime),
                        watermark == null ? null : watermark.delay(),
                        limit != null ? limit : query.readLimit(),
                        false);
        return declaredColumns(session, sqlTable, rows, tableRows, rowtime, declared, columns);
    }

    @Override
    public DynamicTableSource copy() {
        return new DeltaTableSource(
                sqlTable, location, declared, tableRows, columns, watermark, limit);
    }

    @Override
    public String asSummaryString() {
        return "Delta[" + location.uri() + "]";
    }
}
