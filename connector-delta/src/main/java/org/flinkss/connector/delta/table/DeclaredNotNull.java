package org.flinkss.connector.delta.table;

import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.expect.TableConstraints;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaConstraints;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.List;

/**
 * The {@code NOT NULL} columns of a SQL sink (those its {@code CREATE TABLE} declares so, and its
 * primary key's, as Flink resolves them), {@code NOT NULL} in the Delta table it writes, so that
 * Spark enforces them too. A table the run creates has them so from its first commit. An existing
 * table where such a column is nullable (one that {@code reset} emptied, which keeps its columns)
 * gets it as {@code table constraint not-null} gives it (Delta's {@code ALTER TABLE ... ALTER
 * COLUMN c SET NOT NULL}: one {@code CHANGE COLUMN} commit, the column's {@code nullable: false}),
 * before the job is submitted ({@link QueryContext#commitBeforeRun}, which a dry run lists and does
 * not make): the table's rows are checked first, and a null among them refuses the run, naming the
 * column and the row. A run after it finds the column {@code NOT NULL} and commits nothing.
 *
 * <p>A column the table has {@code NOT NULL} and the script nullable stays {@code NOT NULL}: the
 * query's writer checks its rows against it, as for any constraint of the table. Flink itself fails
 * a batch that writes a null into a column the sink declares {@code NOT NULL}, before it commits.
 */
final class DeclaredNotNull {

    private DeclaredNotNull() {}

    /**
     * Plans, for each {@code NOT NULL} column of {@code declared} (the sink's columns as Flink
     * resolved them) that {@code location}'s existing table has nullable, the commit that makes it
     * {@code NOT NULL} before the run.
     */
    static void planCommits(
            QueryContext query, String sqlTable, DeltaLocation location, RowType declared) {
        Warehouse warehouse = location.warehouse();
        String table = location.table();
        if (!warehouse.exists(table)) {
            return;
        }
        List<String> notNullNow = DeltaConstraints.notNullColumns(warehouse.rowType(table));
        for (String column : DeltaConstraints.notNullColumns(declared)) {
            if (notNullNow.contains(column)) {
                continue;
            }
            query.commitBeforeRun(
                    "table '"
                            + sqlTable
                            + "' (its column "
                            + column
                            + " is NOT NULL): SET NOT NULL on column "
                            + column
                            + " of Delta table '"
                            + table
                            + "', once its rows are checked for a null in it",
                    () -> commit(sqlTable, warehouse, table, column));
        }
    }

    private static void commit(String sqlTable, Warehouse warehouse, String table, String column) {
        DeltaTable delta = warehouse.existing(table);
        if (DeltaConstraints.notNullColumns(delta.rowType()).contains(column)) {
            return;
        }
        try {
            TableConstraints.setNotNull(delta, table, column);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new QueryException(
                    "table '"
                            + sqlTable
                            + "' has its column "
                            + column
                            + " NOT NULL: "
                            + e.getMessage()
                            + ", or declare the column without NOT NULL",
                    e);
        }
    }
}
