package org.flinkss.runtime.query;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.expect.Expectation;
import org.flinkss.runtime.expect.TableConstraints;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.List;
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
        List<Expectation> rules = rulesOf(name, context.warehouse());
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
     * Refuses to write table {@code name} in complete mode if it has constraints: complete mode's
     * changelog is not checked against them yet, and a table written unchecked would break them
     * silently.
     */
    static void refuseInCompleteMode(String name, QueryContext context) {
        List<Expectation> rules = rulesOf(name, context.warehouse());
        if (rules.isEmpty()) {
            return;
        }
        throw new QueryException(
                "table '"
                        + name
                        + "' has constraints ("
                        + String.join(", ", rules.stream().map(Expectation::name).toList())
                        + "), which complete mode does not check yet: run the query in append or"
                        + " update mode, or drop them (table constraint drop "
                        + name
                        + " NAME; a NOT NULL column stays until the table is reset)");
    }

    private static List<Expectation> rulesOf(String name, Warehouse warehouse) {
        if (!warehouse.exists(name)) {
            return List.of();
        }
        Optional<DeltaTable.Head> head = warehouse.delta(name).head();
        if (head.isEmpty()) {
            return List.of();
        }
        return TableConstraints.rules(head.get().properties(), head.get().rowType());
    }
}
