package org.flinkss.runtime.query;

import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.function.SerializableFunction;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.progress.ProgressCounter;
import org.flinkss.runtime.sink.delta.GrowingAppendCommit;
import org.flinkss.runtime.sink.delta.GrowingFileWriter;
import org.flinkss.runtime.table.TableDef;
import org.flinkss.runtime.table.TableMode;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.SchemaGrowth;

/**
 * The graph of {@link QueryContext#toGrowingTable}: counted records, growing writers, committer.
 */
final class GrowingTables {

    private GrowingTables() {}

    static <T> DataStream<Void> toTable(
            QueryContext context,
            DataStream<T> stream,
            TableDef<T> table,
            SerializableFunction<T, String> openColumns,
            String queryName) {
        String name = table.name();
        Warehouse warehouse = context.warehouse();
        RowType columns = columns(warehouse, name, table.rowType(), queryName);
        SingleOutputStreamOperator<T> counted =
                stream.map(new ProgressCounter<T, T>(context.scope(), name, record -> record))
                        .returns(stream.getType())
                        .name("to-" + name)
                        .uid("rows-" + name);
        return context.toDelta(
                counted.transform(
                                "write " + name,
                                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                                new GrowingFileWriter<>(
                                        name,
                                        warehouse.folder(name),
                                        columns,
                                        table,
                                        openColumns,
                                        context.scope()))
                        .name(name)
                        .uid("sink-" + name),
                name,
                columns,
                TableMode.APPENDED,
                new GrowingAppendCommit(name));
    }

    /** The existing table's columns, then those of {@code fixed} it lacks; {@code fixed} if new. */
    private static RowType columns(
            Warehouse warehouse, String name, RowType fixed, String queryName) {
        if (!warehouse.exists(name)) {
            return fixed;
        }
        try {
            return SchemaGrowth.union(
                    warehouse.rowType(name), fixed.getFields(), name, "query '" + queryName + "'");
        } catch (IllegalStateException e) {
            throw new QueryException(e.getMessage(), e);
        }
    }
}
