package org.flinkss.runtime.sql;

import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.expect.TableConstraints;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.table.delta.DeltaConstraints;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A SQL file's {@code ALTER TABLE t ADD CONSTRAINT name CHECK (expr)} and {@code DROP CONSTRAINT}
 * statements ({@link SqlConstraintStatement}) on its Delta tables, done as {@code table constraint
 * add|drop} does them ({@link TableConstraints}): each is one commit of the table, made before the
 * job is submitted (never in a dry run), and an {@code ADD} is refused when a row of the table
 * breaks it. The query's own writers of the table enforce the constraints as they will be, from
 * this run on ({@link QueryContext#plannedChecks}).
 *
 * <p>A query's file runs again at every run: a constraint that the table already has with the same
 * expression is no change, so the file's {@code ADD} commits once. One with another expression is
 * refused, as Delta refuses a name it has; a {@code DROP} of a constraint the table does not have
 * is refused unless it says {@code IF EXISTS}, as in Delta.
 */
final class SqlConstraints {

    private final QueryContext context;
    private final SqlErrors errors;
    private final Map<String, Map<String, String>> tableOptions = new HashMap<>();

    /** Each Delta table's CHECK constraints as the statements so far leave them, by its URI. */
    private final Map<String, Map<String, String>> planned = new HashMap<>();

    SqlConstraints(QueryContext context, SqlErrors errors) {
        this.context = context;
        this.errors = errors;
    }

    /** Records the options of a table the file creates, for the statements that alter it. */
    void created(String sqlTable, Map<String, String> options) {
        tableOptions.put(sqlTable, Map.copyOf(options));
    }

    /** Plans {@code alter} (statement {@code statement}) and its commit before the run. */
    void alter(SqlStatement statement, SqlConstraintStatement alter) {
        String sqlTable = alter.table();
        Map<String, String> options = tableOptions.get(sqlTable);
        if (options == null) {
            throw errors.at(
                    statement,
                    "table '"
                            + sqlTable
                            + "' is not created before this statement: put it after the CREATE"
                            + " TEMPORARY TABLE "
                            + sqlTable
                            + " (...) WITH ('connector' = 'delta', ...) of its Delta table");
        }
        ConstrainedTableFactory factory = factory(statement, sqlTable, options);
        ConstrainedTableFactory.Target target =
                errors.run(
                        statement,
                        Map.of(),
                        () -> factory.constrainedTable(sqlTable, options, context.warehouse()));
        String uri = target.warehouse().uri(target.table());
        Map<String, String> checks = planned.computeIfAbsent(uri, u -> existingChecks(target));
        String name = alter.name();
        String now = checks.get(name);
        String change = change(alter, now, target);
        if (alter.isAdd()) {
            String expression = alter.expression();
            if (now != null && !now.equals(expression)) {
                throw errors.at(
                        statement,
                        "Delta table "
                                + uri
                                + " already has the constraint '"
                                + name
                                + "' CHECK ("
                                + now
                                + "): drop it first (ALTER TABLE "
                                + sqlTable
                                + " DROP CONSTRAINT "
                                + name
                                + ") or give this one another name");
            }
            checks.put(name, expression);
        } else if (now == null && !alter.ifExists()) {
            throw errors.at(
                    statement,
                    "Delta table "
                            + uri
                            + " has no constraint '"
                            + name
                            + "' (its constraints: "
                            + checks.keySet()
                            + "): write DROP CONSTRAINT IF EXISTS "
                            + name
                            + " for a file that runs again, or remove the statement");
        } else {
            checks.remove(name);
        }
        if (target.inQueryWarehouse()) {
            context.plannedChecks(target.table(), checks);
        }
        context.commitBeforeRun(
                "statement " + statement.number() + " (" + statement.head() + "): " + change,
                () -> commit(statement, alter, target));
    }

    /**
     * What {@code alter}'s commit would do to the table as the statements before it leave it
     * ({@code now}: the constraint's expression there, or null), in the words of a dry run.
     */
    private static String change(
            SqlConstraintStatement alter, String now, ConstrainedTableFactory.Target target) {
        String table = "Delta table '" + target.table() + "'";
        String name = alter.name();
        if (alter.isAdd()) {
            return now == null
                    ? "ADD CONSTRAINT "
                            + name
                            + " CHECK ("
                            + alter.expression()
                            + ") to "
                            + table
                            + ", once its rows are checked against it"
                    : "nothing: " + table + " has the constraint " + name + " already";
        }
        return now == null
                ? "nothing: " + table + " has no constraint " + name
                : "DROP CONSTRAINT " + name + " from " + table;
    }

    private ConstrainedTableFactory factory(
            SqlStatement statement, String sqlTable, Map<String, String> options) {
        String connector = options.get(FactoryUtil.CONNECTOR.key());
        DynamicTableFactory factory =
                errors.run(
                        statement,
                        Map.of(),
                        () ->
                                FactoryUtil.discoverFactory(
                                        Thread.currentThread().getContextClassLoader(),
                                        DynamicTableFactory.class,
                                        String.valueOf(connector)));
        if (!(factory instanceof ConstrainedTableFactory constrained)) {
            throw errors.at(
                    statement,
                    "table '"
                            + sqlTable
                            + "' has 'connector' = '"
                            + connector
                            + "': CHECK constraints are Delta's, for a table with 'connector' ="
                            + " 'delta'");
        }
        return constrained;
    }

    private static Map<String, String> existingChecks(ConstrainedTableFactory.Target target) {
        if (!target.warehouse().exists(target.table())) {
            return new TreeMap<>();
        }
        return new TreeMap<>(
                target.warehouse()
                        .delta(target.table())
                        .head()
                        .map(head -> DeltaConstraints.checks(head.properties()))
                        .orElse(Map.of()));
    }

    /**
     * The statement's commit, before the job is submitted: the rows of an {@code ADD}'s table are
     * checked first; what the table already is (a rerun's {@code ADD}, an {@code IF EXISTS}'s
     * missing constraint) commits nothing.
     */
    private void commit(
            SqlStatement statement,
            SqlConstraintStatement alter,
            ConstrainedTableFactory.Target target) {
        try {
            DeltaTable delta = target.warehouse().existing(target.table());
            Map<String, String> checks = delta.constraints().checks();
            String now = checks.get(alter.name());
            if (alter.isAdd() && !alter.expression().equals(now)) {
                TableConstraints.add(delta, target.table(), alter.name(), alter.expression());
            } else if (!alter.isAdd() && now != null) {
                delta.constraints().drop(alter.name());
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            // Not a SqlFileException: the run has claimed its checkpoint and created its tables.
            throw new QueryException(errors.at(statement, e.getMessage()).getMessage(), e);
        }
    }
}
