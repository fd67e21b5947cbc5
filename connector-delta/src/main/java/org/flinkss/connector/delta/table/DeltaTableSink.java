package org.flinkss.connector.delta.table;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.sql.SqlSession;
import org.flinkss.runtime.table.TableDef;

import java.util.List;

/**
 * A Delta table of the warehouse as a SQL sink, exactly once: in append mode each micro-batch's
 * rows are one Delta commit with {@code txn(query id, batch id)}, so a replayed batch commits
 * nothing; in complete mode ({@code 'sink.mode' = 'complete'}) each micro-batch replaces the table
 * with the whole result so far in one commit, Spark's complete mode. A missing table is created
 * with the DDL's columns when the run starts, its {@code NOT NULL} columns too; an existing table
 * gets those before the job ({@link DeclaredNotNull}).
 */
final class DeltaTableSink implements DynamicTableSink {

    private final String sqlTable;
    private final DeltaLocation location;
    private final RowType rowType;
    private final boolean complete;
    private final List<String> keyColumns;

    DeltaTableSink(
            String sqlTable,
            DeltaLocation location,
            RowType rowType,
            boolean complete,
            List<String> keyColumns) {
        this.sqlTable = sqlTable;
        this.location = location;
        this.rowType = rowType;
        this.complete = complete;
        this.keyColumns = keyColumns;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        // Append mode takes inserts only: Flink's planner then refuses an updating result, and
        // the SQL file names the INSERT and the way out.
        return complete ? ChangelogMode.upsert() : ChangelogMode.insertOnly();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(
                    ProviderContext provider, DataStream<RowData> rows) {
                return write(rows);
            }
        };
    }

    private DataStreamSink<?> write(DataStream<RowData> rows) {
        QueryContext query = SqlSession.current(DeltaTableFactory.IDENTIFIER).context();
        String table = location.table();
        DeclaredNotNull.planCommits(query, sqlTable, location, rowType);
        DataStream<Void> committed;
        if (complete) {
            DataStream<RowData> changes =
                    rows.filter(row -> row.getRowKind() != RowKind.UPDATE_BEFORE)
                            .map(new InsertOrDelete(rowType))
                            .returns(InternalTypeInfo.of(rowType))
                            .name("changes of " + sqlTable)
                            .uid("sql-changes-" + sqlTable);
            committed = query.toCompleteTable(changes, table, rowType, keyColumns);
        } else {
            committed = query.toTable(rows, new TableDef<>(table, rowType, row -> row));
        }
        return committed
                .sinkTo(new DiscardingSink<>())
                .name("committed " + table)
                .uid("sql-committed-" + table);
    }

    /** A change of the result: its new value (an insert) or its removal. */
    private static final class InsertOrDelete implements MapFunction<RowData, RowData> {
        private static final long serialVersionUID = 1L;
        private final RowData.FieldGetter[] getters;

        InsertOrDelete(RowType rowType) {
            getters = new RowData.FieldGetter[rowType.getFieldCount()];
            for (int i = 0; i < getters.length; i++) {
                getters[i] = RowData.createFieldGetter(rowType.getTypeAt(i), i);
            }
        }

        @Override
        public RowData map(RowData row) {
            GenericRowData out = new GenericRowData(getters.length);
            for (int i = 0; i < getters.length; i++) {
                out.setField(i, getters[i].getFieldOrNull(row));
            }
            out.setRowKind(row.getRowKind() == RowKind.DELETE ? RowKind.DELETE : RowKind.INSERT);
            return out;
        }
    }

    @Override
    public DynamicTableSink copy() {
        return new DeltaTableSink(sqlTable, location, rowType, complete, keyColumns);
    }

    @Override
    public String asSummaryString() {
        return "Delta[" + location.uri() + (complete ? ", complete" : "") + "]";
    }
}
