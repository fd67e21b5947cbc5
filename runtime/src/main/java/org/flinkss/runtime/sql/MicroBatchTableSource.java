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
