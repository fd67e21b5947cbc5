package org.flinkss.runtime.query;

import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.progress.ProgressCounter;
import org.flinkss.runtime.sink.delta.ChangeSetWriter;
import org.flinkss.runtime.sink.delta.CompleteCommit;
import org.flinkss.runtime.sink.delta.MergeCommit;
import org.flinkss.runtime.sink.delta.TableCommit;
import org.flinkss.runtime.table.TableMode;

import java.util.List;

/**
 * The Delta table sinks whose committer applies a micro-batch's rows to the table's rows (not an
 * append): complete mode's replace ({@link CompleteCommit}) and the upsert's MERGE ({@link
 * MergeCommit}). Each counts the rows in progress, gathers them in change sets ({@link
 * ChangeSetWriter}) and commits them once per batch through the table's committer.
 */
final class ChangeSetTables {

    private ChangeSetTables() {}

    /** See {@link QueryContext#toCompleteTable}; {@code changes} is the last change per key. */
    static DataStream<Void> complete(
            QueryContext context,
            DataStream<RowData> changes,
            String table,
            RowType rowType,
            List<String> keyColumns) {
        return commit(
                context,
                changes,
                table,
                rowType,
                TableMode.REPLACED,
                new CompleteCommit(rowType, keyColumns),
                "complete");
    }

    /** See {@link QueryContext#toMergedTable}. */
    static DataStream<Void> merged(
            QueryContext context,
            DataStream<RowData> rows,
            String table,
            RowType rowType,
            List<String> keyColumns) {
        return commit(
                context,
                rows,
                table,
                rowType,
                TableMode.MERGED,
                new MergeCommit(rowType, keyColumns),
                "MERGE ON " + keyColumns);
    }

    /**
     * @param how the sink's description after the table's place ({@code DeltaSink[<uri>, how]})
     */
    private static DataStream<Void> commit(
            QueryContext context,
            DataStream<RowData> rows,
            String table,
            RowType rowType,
            TableMode mode,
            TableCommit commit,
            String how) {
        var counted =
                rows.map(new ProgressCounter<>(context.scope(), table, (RowData r) -> r))
                        .returns(InternalTypeInfo.of(rowType))
                        .name("to-" + table)
                        .uid("rows-" + table);
        var sets =
                counted.transform(
                                "changes " + table,
                                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                                new ChangeSetWriter(rowType))
                        .name(table)
                        .uid("sink-" + table);
        if (mode == TableMode.MERGED) {
            // One writer: the rows of a key reach it in the stream's order (a query reads with
            // ReadOrder.ONE_READER), so the last row of a key in the batch is the last one merged.
            sets.setParallelism(1);
        }
        DataStream<Void> committed = context.toDelta(sets, table, rowType, mode, commit);
        context.describeSink(
                table, "DeltaSink[" + context.warehouse().uri(table) + ", " + how + "]");
        return committed;
    }
}
