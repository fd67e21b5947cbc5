package org.flinkss.jobs.cli.output;

import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.table.Warehouse;

import javax.annotation.Nullable;

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Tables by name for the command line: the warehouse's Delta tables, then the SQL database's. */
public final class Tables {

    private final Warehouse warehouse;
    @Nullable private final Database database;

    public Tables(Warehouse warehouse, @Nullable Database database) {
        this.warehouse = warehouse;
        this.database = database;
    }

    private boolean inDatabase(String table) {
        if (warehouse.exists(table) || database == null) {
            return false;
        }
        try {
            if (database.hasTable(table)) {
                return true;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot look for table '"
                            + table
                            + "' in "
                            + database.describe()
                            + ": "
                            + e.getMessage(),
                    e);
        }
        throw new IllegalArgumentException(
                "no table '"
                        + table
                        + "' in warehouse "
                        + warehouse.where()
                        + " (tables: "
                        + String.join(", ", warehouse.tables())
                        + ") nor in "
                        + database.describe()
                        + ": run the query that writes it first");
    }

    /**
     * The rows of a table of the warehouse as of a version or a time (Delta's time travel), sorted
     * by every column; a table of the SQL database has no versions and is refused.
     */
    public List<List<Object>> sortedValues(
            String table, @Nullable Long version, @Nullable Instant time) {
        if (version == null && time == null) {
            return sortedValues(table);
        }
        refuseTimeTravelInDatabase(table);
        return Warehouse.sortedValues(warehouse.snapshot(table, version, time));
    }

    /** The columns of a table as of a version or a time (see {@link #sortedValues}). */
    public List<String> columns(String table, @Nullable Long version, @Nullable Instant time) {
        if (version == null && time == null) {
            return columns(table);
        }
        refuseTimeTravelInDatabase(table);
        return warehouse.snapshot(table, version, time).rowType().getFieldNames();
    }

    private void refuseTimeTravelInDatabase(String table) {
        if (inDatabase(table)) {
            throw new IllegalArgumentException(
                    "table '"
                            + table
                            + "' is in "
                            + database.describe()
                            + ", which keeps no versions: --version and --timestamp read Delta"
                            + " tables of the warehouse");
        }
    }

    /**
     * Where a table's rows are, in one line: {@code Delta table <uri> (N rows)}, {@code SQL
     * database <url>, table <name> (N rows)}, both when both hold one of that name, or {@code not
     * written yet}.
     */
    public String where(String table) {
        List<String> places = new ArrayList<>();
        if (warehouse.exists(table)) {
            places.add(
                    "Delta table "
                            + warehouse.uri(table)
                            + " ("
                            + rows(warehouse.count(table))
                            + ")");
        }
        if (inSqlDatabase(table)) {
            places.add(
                    "SQL database "
                            + database.describe()
                            + ", table "
                            + table
                            + " ("
                            + rows(call(() -> database.count(table)))
                            + ")");
        }
        return places.isEmpty() ? "not written yet" : String.join("; ", places);
    }

    /**
     * A note for a command that reads {@code table} by name, when its rows are not where a reader
     * of the warehouse looks: the SQL database (an update-mode run, {@code latest}), or the SQL
     * database as well as the warehouse; empty otherwise.
     */
    public Optional<String> note(String table) {
        if (!inSqlDatabase(table)) {
            return Optional.empty();
        }
        if (!warehouse.exists(table)) {
            return Optional.of(
                    "note: "
                            + table
                            + " is a table of the SQL database "
                            + database.describe()
                            + " (update mode and 'latest' upsert there), not a Delta table of the"
                            + " warehouse");
        }
        return Optional.of(
                "note: this is the warehouse's Delta table "
                        + table
                        + "; the SQL database "
                        + database.describe()
                        + " has a table of the same name too ("
                        + rows(call(() -> database.count(table)))
                        + "), which update-mode runs and 'latest' write: see 'status <query>'");
    }

    private boolean inSqlDatabase(String table) {
        return database != null && call(() -> database.hasTable(table));
    }

    private static String rows(long n) {
        return String.format(Locale.ROOT, "%,d %s", n, n == 1 ? "row" : "rows");
    }

    public long count(String table) {
        return inDatabase(table) ? call(() -> database.count(table)) : warehouse.count(table);
    }

    public List<String> columns(String table) {
        return inDatabase(table)
                ? call(() -> database.columns(table))
                : warehouse.rowType(table).getFieldNames();
    }

    public List<List<Object>> sortedValues(String table) {
        return inDatabase(table) ? call(() -> database.rows(table)) : warehouse.sortedValues(table);
    }

    private interface Sql<T> {
        T get() throws SQLException;
    }

    private <T> T call(Sql<T> sql) {
        try {
            return sql.get();
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "reading " + database.describe() + " failed: " + e.getMessage(), e);
        }
    }
}
