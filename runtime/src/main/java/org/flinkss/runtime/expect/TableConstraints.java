package org.flinkss.runtime.expect;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.table.delta.DeltaConstraints;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

import static org.apache.flink.table.api.Expressions.callSql;

/**
 * A Delta table's {@code CHECK} and {@code NOT NULL} constraints ({@link DeltaConstraints}) as this
 * project adds and enforces them. Adding one checks the table's rows first, as Delta's {@code ALTER
 * TABLE ... ADD CONSTRAINT} does: a row that breaks it refuses the constraint, naming both. Writing
 * a table with constraints checks each row on its way ({@link #enforce}): the constraints become
 * {@code fail} expectations of the table, so a row that breaks one fails the batch before it
 * commits, as {@code --expect NAME:EXPR:fail} does.
 *
 * <p>A constraint's expression is Spark SQL, which Delta stores and Spark evaluates; here it is
 * evaluated as Flink SQL, so one that Flink SQL cannot evaluate on the table's columns is refused
 * when it is added (and a run refuses a table that another engine gave such a constraint).
 */
public final class TableConstraints {

    private TableConstraints() {}

    /**
     * The {@code fail} rules that enforce a table's constraints: each {@code CHECK} by its name,
     * then each {@code NOT NULL} column as {@code <column>_not_null}.
     *
     * @param properties the table's properties ({@code delta.constraints.<name>})
     * @param rowType the table's columns, as its log holds them
     */
    public static List<Expectation> rules(Map<String, String> properties, RowType rowType) {
        List<Expectation> rules = new ArrayList<>();
        DeltaConstraints.checks(properties)
                .forEach(
                        (name, expression) ->
                                rules.add(
                                        new Expectation(
                                                null, name, expression, ExpectationAction.FAIL)));
        for (String column : DeltaConstraints.notNullColumns(rowType)) {
            rules.add(
                    new Expectation(
                            null,
                            column + "_not_null",
                            "`" + column + "` IS NOT NULL",
                            ExpectationAction.FAIL));
        }
        return rules;
    }

    /**
     * The rows of {@code rows}, each checked against {@code rules} (a table's constraints, {@link
     * #rules}): the first that breaks one fails the job before the batch commits, naming the
     * constraint, the table and the row. The operator's uid is {@code constraints-<table>}.
     *
     * @throws IllegalArgumentException if a constraint's expression is not Flink SQL over {@code
     *     rowType}, naming it
     */
    public static DataStream<RowData> enforce(
            DataStream<RowData> rows,
            String table,
            RowType rowType,
            List<Expectation> rules,
            RunScope scope) {
        return Expectations.check(rows, table, rowType, rules, scope, true)
                .uid("constraints-" + table);
    }

    /**
     * Adds the {@code CHECK} constraint {@code name} to {@code table} (its name in the warehouse:
     * {@code shown}), once its expression has been found boolean over the table's columns and every
     * row of its current version satisfies it (TRUE; a NULL breaks it, as in Delta).
     *
     * @return the new version
     * @throws IllegalArgumentException naming the constraint and why: the expression, or a row
     */
    public static long add(DeltaTable table, String shown, String name, String expression) {
        new Expectation(null, name, expression, ExpectationAction.FAIL); // a name, an expression
        DeltaSnapshot snapshot = table.snapshot();
        String what = "constraint '" + name + "'";
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        List<RowData> rows = snapshot.rows();
        Table input =
                tEnv.fromDataStream(env.fromData(rows, InternalTypeInfo.of(snapshot.rowType())));
        Expectations.validate(input, what, shown, expression);
        if (!rows.isEmpty()) {
            Table broken = input.where(callSql("NOT ((" + expression + ") IS TRUE)")).limit(1);
            Optional<Row> row = first(broken);
            if (row.isPresent()) {
                throw new IllegalArgumentException(
                        what
                                + " (CHECK ("
                                + expression
                                + ")) is not added to table '"
                                + shown
                                + "': its version "
                                + snapshot.version()
                                + " has a row that breaks it, "
                                + values(snapshot.rowType(), row.get())
                                + ", and Delta refuses a constraint that existing rows violate."
                                + " Fix or delete those rows first, or write the expression so"
                                + " that they pass");
            }
        }
        return table.constraints().add(name, expression, snapshot.version());
    }

    /**
     * Makes {@code column} of {@code table} {@code NOT NULL} once no row of its current version
     * holds a null in it.
     *
     * @return the new version
     * @throws IllegalArgumentException naming the column and a row that holds a null, or the
     *     columns if it has no such column
     */
    public static long setNotNull(DeltaTable table, String shown, String column) {
        DeltaSnapshot snapshot = table.snapshot();
        RowType rowType = snapshot.rowType();
        int at = rowType.getFieldNames().indexOf(column);
        if (at >= 0) {
            RowData.FieldGetter getter = RowData.createFieldGetter(rowType.getTypeAt(at), at);
            for (RowData row : snapshot.rows()) {
                if (getter.getFieldOrNull(row) == null) {
                    throw new IllegalArgumentException(
                            "column '"
                                    + column
                                    + "' of table '"
                                    + shown
                                    + "' is not made NOT NULL: its version "
                                    + snapshot.version()
                                    + " has a row with a null in it, "
                                    + values(rowType, row)
                                    + ". Fix or delete those rows first");
                }
            }
        }
        return table.constraints().setNotNull(column, snapshot.version());
    }

    private static Optional<Row> first(Table table) {
        try (CloseableIterator<Row> it = table.execute().collect()) {
            return it.hasNext() ? Optional.of(it.next()) : Optional.empty();
        } catch (Exception e) {
            throw new IllegalStateException(
                    "checking the table's rows failed: " + Expectations.firstLine(e), e);
        }
    }

    private static String values(RowType rowType, Row row) {
        StringJoiner values = new StringJoiner(", ", "{", "}");
        for (int i = 0; i < rowType.getFieldCount(); i++) {
            values.add(rowType.getFieldNames().get(i) + "=" + row.getField(i));
        }
        return values.toString();
    }

    private static String values(RowType rowType, RowData row) {
        StringJoiner values = new StringJoiner(", ", "{", "}");
        for (int i = 0; i < rowType.getFieldCount(); i++) {
            Object v = RowData.createFieldGetter(rowType.getTypeAt(i), i).getFieldOrNull(row);
            values.add(rowType.getFieldNames().get(i) + "=" + v);
        }
        return values.toString();
    }
}
