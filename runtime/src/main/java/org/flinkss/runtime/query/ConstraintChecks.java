package org.flinkss.runtime.query;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.expect.Expectation;
import org.flinkss.runtime.expect.NotNullCheck;
import org.flinkss.runtime.expect.TableConstraints;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaConstraints;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rows a query writes to a Delta table with {@code CHECK} or {@code NOT NULL} constraints,
 * checked on their way ({@link TableConstraints#enforce}): the constraints are read from the table
 * when the job is built, so a constraint added between runs holds from the next run on.
 */
final class ConstraintChecks {

    private ConstraintChecks() {}

    /** {@code rows} checked against the constraints of table {@code name}, if it has any. */
    static DataStream<RowData> checked(
            DataStream<RowData> rows, String name, RowType rowType, QueryContext context) {
        List<Expectation> rules = rulesOf(name, rowType, context);
        if (rules.isEmpty()) {
            return rows;
        }
        try {
            return TableConstraints.enforce(rows, name, rowType, rules, context.scope());
        } catch (IllegalArgumentException e) {
            throw new QueryException(
                    e.getMessage()
                            + ". Delta constraints are Spark SQL, checked here as Flink SQL: drop"
                            + " it (table constraint drop "
                            + name
                            + " NAME) or write it in SQL both read",
                    e);
        }
    }

    /**
     * Complete mode's changelog for table {@code name}, checked against the table's {@code NOT
     * NULL} columns ({@link NotNullCheck}); a table with {@code CHECK} constraints is refused
     * before anything runs, naming them: that changelog is not checked against them yet, and a
     * table written unchecked would break them silently.
     */
    static DataStream<RowData> checkedInCompleteMode(
            DataStream<RowData> changes, String name, RowType rowType, QueryContext context) {
        Optional<DeltaTable.Head> head = headOf(name, context.warehouse());
        List<String> checks =
                List.copyOf(
                        context.plannedChecks(name)
                                .orElseGet(
                                        () ->
                                                head.map(
                                                                h ->
                                                                        DeltaConstraints.checks(
                                                                                h.properties()))
                                                        .orElse(Map.of()))
                                .keySet());
        if (!checks.isEmpty()) {
            throw new QueryException(
                    "table '"
                            + name
                            + "' has CHECK constraints ("
                            + String.join(", ", checks)
                            + "), which complete mode does not check yet: run the query in append"
                            + " or update mode, or drop them (table constraint drop "
                            + name
                            + " NAME)");
        }
        if (head.isEmpty()) {
            return changes;
        }
        List<String> notNull = DeltaConstraints.notNullColumns(head.get().rowType());
        if (notNull.isEmpty()) {
            return changes;
        }
        try {
            return changes.map(new NotNullCheck(name, rowType, notNull))
                    .returns(changes.getType())
                    .name("constraints " + name)
                    .uid("constraints-" + name);
        } catch (IllegalArgumentException e) {
            throw new QueryException(e.getMessage(), e);
        }
    }

    /**
     * The table's constraints as the job will find them: its log's, with the {@code CHECK}
     * constraints the query itself changes before the run ({@link QueryContext#plannedChecks}).
     */
    private static List<Expectation> rulesOf(String name, RowType rowType, QueryContext context) {
        Optional<DeltaTable.Head> head = headOf(name, context.warehouse());
        Optional<Map<String, String>> planned = context.plannedChecks(name);
        if (planned.isEmpty()) {
            return head.map(h -> TableConstraints.rules(h.properties(), h.rowType()))
                    .orElse(List.of());
        }
        Map<String, String> properties = new HashMap<>();
        head.ifPresent(h -> properties.putAll(h.properties()));
        properties.keySet().removeIf(key -> key.startsWith(DeltaConstraints.PREFIX));
        planned.get()
                .forEach((check, expr) -> properties.put(DeltaConstraints.PREFIX + check, expr));
        return TableConstraints.rules(
                properties, head.map(DeltaTable.Head::rowType).orElse(rowType));
    }

    private static Optional<DeltaTable.Head> headOf(String name, Warehouse warehouse) {
        return warehouse.exists(name) ? warehouse.delta(name).head() : Optional.empty();
    }
}
