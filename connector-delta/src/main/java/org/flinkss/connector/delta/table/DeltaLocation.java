package org.flinkss.connector.delta.table;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.sql.SqlTableException;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

/**
 * Where a SQL table's Delta table is: a warehouse and a table name in it. {@code 'table'} names one
 * in the query's warehouse; {@code 'path'} is a table folder anywhere, read through a warehouse of
 * its parent folder.
 */
record DeltaLocation(Warehouse warehouse, String table, boolean inQueryWarehouse) {

    static DeltaLocation of(String sqlTable, ReadableConfig options, Warehouse queryWarehouse) {
        String table = options.getOptional(DeltaTableOptions.TABLE).orElse(null);
        String path = options.getOptional(DeltaTableOptions.PATH).orElse(null);
        if ((table == null) == (path == null)) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "' ('connector' = 'delta') needs either 'table' = '<a table of the"
                            + " warehouse>' or 'path' = '<the table's folder>', not "
                            + (table == null ? "neither" : "both"));
        }
        if (table != null) {
            if (!table.matches("[A-Za-z0-9_][A-Za-z0-9_.-]*") || table.contains("..")) {
                throw new SqlTableException(
                        sqlTable,
                        "table '"
                                + sqlTable
                                + "': 'table' = '"
                                + table
                                + "' is not a table name of the warehouse; give a folder as"
                                + " 'path'");
            }
            return new DeltaLocation(queryWarehouse, table, true);
        }
        // A folder's URI may end in '/' (Path.toUri() gives one): the table is the folder.
        Path folder = Storage.location(path.replaceAll("(?<=[^/:])/+$", ""));
        Path parent = folder.getParent();
        if (parent == null || folder.getName().isEmpty()) {
            throw new SqlTableException(
                    sqlTable,
                    "table '" + sqlTable + "': 'path' = '" + path + "' is not a table's folder");
        }
        boolean inWarehouse =
                parent.toUri().normalize().equals(queryWarehouse.location().toUri().normalize());
        Warehouse warehouse = inWarehouse ? queryWarehouse : new Warehouse(parent);
        return new DeltaLocation(warehouse, folder.getName(), inWarehouse);
    }

    String uri() {
        return warehouse.uri(table);
    }
}
