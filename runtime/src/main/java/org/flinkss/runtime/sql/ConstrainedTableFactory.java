package org.flinkss.runtime.sql;

import org.flinkss.runtime.table.Warehouse;

import java.util.Map;

/**
 * A table connector whose tables take Delta's {@code CHECK} constraints from a SQL file ({@code
 * ALTER TABLE t ADD CONSTRAINT name CHECK (expr)}, {@code DROP CONSTRAINT name}): it says which
 * Delta table a {@code CREATE TABLE}'s options point at. The {@code 'delta'} connector is one.
 */
public interface ConstrainedTableFactory {

    /** A Delta table: its warehouse, its name there, and whether that is the query's warehouse. */
    record Target(Warehouse warehouse, String table, boolean inQueryWarehouse) {}

    /**
     * The Delta table that SQL table {@code sqlTable}, created with {@code options}, stands for.
     *
     * @throws SqlTableException if the options name no table, naming {@code sqlTable}
     */
    Target constrainedTable(String sqlTable, Map<String, String> options, Warehouse warehouse);
}
