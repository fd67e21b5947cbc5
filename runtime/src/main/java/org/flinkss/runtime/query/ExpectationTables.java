package org.flinkss.runtime.query;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.function.SerializableFunction;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.expect.Expectation;
import org.flinkss.runtime.expect.Expectations;
import org.flinkss.runtime.sink.delta.BatchIdCommit;
import org.flinkss.runtime.table.TableDef;
import org.flinkss.runtime.table.TableMode;
import org.flinkss.runtime.table.Warehouse;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The tables a query appends to with expectations ({@code --expect}): its rows checked on their
 * way, those a {@code drop} rule leaves out appended to {@code <table>_rejected}, each exactly
 * once, committed with the same micro-batches as the table.
 */
final class ExpectationTables {

    private final List<Expectation> expectations;
    private final List<Expectation> applied = new ArrayList<>();

    /** The {@code <table>_rejected} tables: records, as the skipped files' table. */
    private final List<String> rejectedTables = new ArrayList<>();

    @Nullable private String mainTable;

    ExpectationTables(List<Expectation> expectations) {
        this.expectations = expectations;
    }

    /**
     * Whether the table, appended to, is checked: a rule applies to it (the first table a query
     * appends to is its main one), or it has a rejected table already. Once it has, it stays wired
     * without rules: its committer's state is in the checkpoint, and rules may change from run to
     * run, as in Spark.
     */
    boolean checks(String table, Warehouse warehouse) {
        if (mainTable == null) {
            mainTable = table;
        }
        return !rules(table).isEmpty() || warehouse.exists(Expectations.rejectedTable(table));
    }

    private List<Expectation> rules(String table) {
        boolean main = table.equals(mainTable);
        return expectations.stream().filter(rule -> rule.appliesTo(table, main)).toList();
    }

    List<String> rejectedTables() {
        return rejectedTables;
    }

    /** See {@link QueryContext#toTable}: the table's rows that its rules keep. */
    <T> DataStream<Void> checked(QueryContext context, DataStream<T> stream, TableDef<T> table) {
        String name = table.name();
        List<Expectation> rules = rules(name);
        applied.addAll(rules);
        rejectedTables.add(Expectations.rejectedTable(name));
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
        // On the query's environment: inside a SQL job's planning the stream's environment is the
        // planner's, which keeps only what the plan's sinks reach, and the rejected rows' table
        // would be left out of the job.
        DataStream<RowData> rejected =
                new DataStream<>(
                        context.env(),
                        kept.getSideOutput(Expectations.REJECTED).getTransformation());
        RowType rejectedType = Expectations.rejectedType(table.rowType());
        context.appendGrowing(
                rejected,
                new TableDef<RowData>(Expectations.rejectedTable(name), rejectedType, row -> row),
                new BatchIdCommit(rejectedType));
        return committed;
    }

    /**
     * Refuses the run if a rule applied to no table: it names a table the query does not append to
     * (rules check appended tables only), or the query appends to none.
     */
    void checkApplied(String queryName, Map<String, TableMode> tableModes) {
        for (Expectation rule : expectations) {
            if (!applied.contains(rule)) {
                throw new QueryException(unapplied(rule, queryName, tableModes));
            }
        }
    }

    private String unapplied(
            Expectation rule, String queryName, Map<String, TableMode> tableModes) {
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
