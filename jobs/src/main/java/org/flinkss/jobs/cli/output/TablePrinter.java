package org.flinkss.jobs.cli.output;

import org.flinkss.runtime.table.FinalRows;
import org.flinkss.runtime.table.RowValues;

import javax.annotation.Nullable;

import java.io.PrintStream;
import java.time.Instant;
import java.util.List;

/** A table as the command line prints it: a grid like the course's display(), or CSV. */
public final class TablePrinter {

    private TablePrinter() {}

    /** The first {@code limit} rows, sorted by every column, as a grid; says how many there are. */
    public static String show(Tables tables, String table, int limit) {
        return show(tables, table, limit, null, null);
    }

    /** {@link #show} as of a version or a time of a Delta table (time travel), if given. */
    public static String show(
            Tables tables,
            String table,
            int limit,
            @Nullable Long version,
            @Nullable Instant time) {
        List<List<Object>> rows = tables.sortedValues(table, version, time);
        long total = rows.size();
        String grid =
                RowValues.grid(
                        tables.columns(table, version, time),
                        rows.subList(0, (int) Math.min(limit, total)));
        return grid
                + (total > limit ? "only showing top " + limit + " of " + total + " rows\n" : "");
    }

    /** The first {@code limit} final rows as a grid, then which rows are final and how many. */
    public static String show(FinalRows rows, int limit) {
        List<List<Object>> shown = rows.rows();
        return RowValues.grid(rows.columns(), shown.subList(0, Math.min(limit, shown.size())))
                + (shown.size() > limit
                        ? "only showing top " + limit + " of " + shown.size() + " final rows\n"
                        : "")
                + rows.describe()
                + "\n";
    }

    /** Every row, sorted by every column, as CSV with one header line. */
    public static void export(Tables tables, String table, PrintStream out) {
        export(tables, table, out, null, null);
    }

    /** {@link #export} as of a version or a time of a Delta table (time travel), if given. */
    public static void export(
            Tables tables,
            String table,
            PrintStream out,
            @Nullable Long version,
            @Nullable Instant time) {
        csv(out, tables.columns(table, version, time), tables.sortedValues(table, version, time));
    }

    /** Rows as CSV, in the order given, with one header line. */
    public static void csv(PrintStream out, List<String> columns, List<List<Object>> rows) {
        out.println(String.join(",", columns));
        StringBuilder line = new StringBuilder();
        for (List<Object> row : rows) {
            line.setLength(0);
            for (int i = 0; i < row.size(); i++) {
                if (i > 0) {
                    line.append(',');
                }
                line.append(RowValues.csv(row.get(i)));
            }
            out.println(line);
        }
    }
}
