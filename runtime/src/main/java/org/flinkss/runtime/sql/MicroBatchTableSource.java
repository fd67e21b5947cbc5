package org.flinkss.runtime.sql;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsSourceWatermark;
import org.apache.flink.table.connector.source.abilities.SupportsWatermarkPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * A SQL source of a query run by {@code sql --file}: an unbounded stream of inserts that the
 * runtime reads in micro-batches ({@link #rows()}, built on the {@link SqlSession}'s query). Its
 * table's {@code WATERMARK} is Spark's {@code withWatermark}: the runtime's micro-batch watermark
 * stands for it, so the planner's per-record watermark assigner is taken over here and dropped.
 */
public abstract class MicroBatchTableSource
        implements ScanTableSource, SupportsWatermarkPushDown, SupportsSourceWatermark {

    /** The table's rows as the runtime reads them, with its micro-batch watermark. */
    protected abstract DataStream<RowData> rows();

    /**
     * The columns the DDL declares of rows read from a source, after the rows late for the table's
     * stateful operator were routed ({@link SqlSession#onTime}).
     *
     * @param rowType the rows' type as read
     * @param rowtime the index of the event-time column in {@code rowType}, -1 for none
     * @param columns the index in {@code rowType} of each declared column
     */
    protected static DataStream<RowData> declaredColumns(
            SqlSession session,
            String sqlTable,
            DataStream<RowData> rows,
            RowType rowType,
            int rowtime,
            RowType declared,
            int[] columns) {
        DataStream<RowData> onTime = session.onTime(sqlTable, rows, rowType, rowtime);
        SqlColumns.Projection projection = new SqlColumns.Projection(declared, rowType, columns);
        return onTime.map(projection::apply)
                .returns(InternalTypeInfo.of(declared))
                .name("columns of " + sqlTable)
                .uid("sql-columns-" + sqlTable);
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(
                    ProviderContext provider, StreamExecutionEnvironment env) {
                return rows();
            }

            @Override
            public boolean isBounded() {
                return false;
            }
        };
    }

    @Override
    public void applyWatermark(WatermarkStrategy<RowData> watermarkStrategy) {
        // The runtime's micro-batch watermark stands for the table's WATERMARK clause.
    }

    @Override
    public void applySourceWatermark() {
        // As applyWatermark: the runtime's micro-batch watermark is the source's own.
    }
}
