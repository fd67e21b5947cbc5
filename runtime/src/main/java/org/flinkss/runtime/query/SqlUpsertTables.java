package org.flinkss.runtime.query;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.progress.ProgressCounter;
import org.flinkss.runtime.sink.ForEachBatchSink;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.sink.jdbc.JdbcUpsert;
import org.flinkss.runtime.sink.jdbc.SqlTableOwners;
import org.flinkss.runtime.table.TableOwner;

import java.sql.SQLException;
import java.util.List;

/**
 * The SQL database sink of {@link QueryContext#toUpsertTable} and {@link
 * QueryContext#toUpdatedTable} ({@code --jdbc-url}): each batch upserted by key in one transaction,
 * the table claimed for the query before any data moves.
 */
final class SqlUpsertTables {

    private SqlUpsertTables() {}

    static void upsert(
            QueryContext context,
            DataStream<RowData> rows,
            String table,
            RowType rowType,
            List<String> keyColumns,
            Database database) {
        // Serializable, on any storage: the operator reads the id where the checkpoint is.
        CheckpointLayout layout = context.scope().layout();
        JdbcUpsert upsert =
                new JdbcUpsert(
                        database, table, rowType, keyColumns, () -> QueryIdentity.idIn(layout));
        context.beforeRun(
                () -> {
                    // Claimed before any data moves, in the transaction that creates the table:
                    // another base's writer of the same table is refused, as for Delta tables.
                    SqlTableOwners owners = new SqlTableOwners(database);
                    TableOwner owner =
                            owners.owner(context.queryName(), QueryIdentity.idIn(layout), layout);
                    try {
                        owners.claim(table, owner, upsert::createTables);
                    } catch (IllegalStateException e) {
                        throw new QueryException(e.getMessage(), e);
                    } catch (SQLException e) {
                        throw new QueryException(
                                "cannot create table '"
                                        + table
                                        + "' in "
                                        + database.describe()
                                        + ": "
                                        + e.getMessage(),
                                e);
                    }
                });
        DataStream<RowData> counted =
                rows.map(new ProgressCounter<>(context.scope(), table, (RowData r) -> r))
                        .returns(InternalTypeInfo.of(rowType))
                        .name("to-" + table)
                        .uid("rows-" + table);
        counted.sinkTo(
                        new ForEachBatchSink<>(
                                InternalTypeInfo.of(rowType)
                                        .createSerializer(
                                                new org.apache.flink.api.common.serialization
                                                        .SerializerConfigImpl()),
                                upsert))
                .setParallelism(1)
                .name(table)
                .uid("sink-" + table);
        context.describeSink(
                table,
                "ForeachBatchSink[upsert into " + table + " at " + database.describe() + "]");
        context.recordColumns(table, rowType);
    }
}
