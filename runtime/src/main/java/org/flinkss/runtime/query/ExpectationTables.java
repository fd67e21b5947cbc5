package org.flinkss.runtime.query;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.util.function.SerializableFunction;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.expect.Expectation;
import org.flinkss.runtime.expect.Expectations;
import org.flinkss.runtime.table.TableDef;
import org.flinkss.runtime.table.TableMode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A table appended to with expectations ({@code --expect}): its rows checked on their way, those a
 * {@code drop} rule leaves out appended to {@code <table>_rejected}, each exactly once, committed
 * with the same micro-batches as the table.
 */
final class ExpectationTables {

    private ExpectationTables() {}

    /** See {@link QueryContext#toTable}: the table's rows that {@code rules} keep. */
    static <T> DataStream<Void> checked(
            QueryContext context,
            DataStream<T> stream,
            TableDef<T> table,
            List<Expectation> rules) {
        String name = table.name();
        SerializableFunction<T, RowData> toRow = table.rowFunction();
        SingleOutputStreamOperator<RowData> kept;
        try {
            kept =
                    Expectations.check(
                            stream.map(toRow::apply)
                                    .returns(InternalTypeInfo.of(table.rowType()))
                                    .name("rows-to-check-" + name)
                                    .uid("expect-rows-" + name),
                            name,
                            table.rowType(),
                            rules,
                            context.scope());
        } catch (IllegalArgumentException e) {
            throw new QueryException(e.getMessage(), e);
        }
        // The table first: progress reports a query's first table as its sink.
        DataStream<Void> committed =
                context.append(kept, new TableDef<RowData>(name, table.rowType(), row -> row));
        context.append(
                kept.getSideOutput(Expectations.REJECTED),
                new TableDef<RowData>(
                        Expectations.rejectedTable(name),
                        Expectations.rejectedType(table.rowType()),
                        row -> row));
        return committed;
    }

    /** Why {@code rule} was refused: it applied to no table the query appends to. */
    static String unapplied(
            Expectation rule,
            String queryName,
            Map<String, TableMode> tableModes,
            List<String> rejectedTables) {
        List<String> appended = new ArrayList<>();
        tableModes.forEach(
                (table, mode) -> {
                    if (mode == TableMode.APPENDED && !rejectedTables.contains(table)) {
                        appended.add(table);
                    }
                });
        return "expectation '"
                + rule
                + "' applies to no table of query '"
                + queryName
                + "': it appends to "
                + (appended.isEmpty() ? "no table" : "the tables " + appended)
                + (rule.table() == null ? "" : ", not to '" + rule.table() + "'")
                + ". Expectations check tables appended to, not merged or replaced ones; name"
                + " one as TABLE.NAME:EXPR:ACTION";
    }
}
