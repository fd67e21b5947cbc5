package org.flinkss.jobs.report;

import java.util.List;

/**
 * A windowed table and its rows, sorted by window.
 *
 * @param name the table
 * @param keyColumn the name of its key column ({@code event_type}, {@code user_id})
 * @param inDatabase whether its rows are in the SQL database (update mode: the open windows with
 *     their counts so far), not in the warehouse
 * @param rows its rows, possibly none
 */
public record WindowedTable(
        String name, String keyColumn, boolean inDatabase, List<WindowRow> rows) {

    public WindowedTable {
        rows = List.copyOf(rows);
    }

    /** The columns of a windowed table: window_start, window_end, a key, events, amount. */
    public static boolean isWindowed(List<String> columns) {
        return columns.size() == 5
                && columns.get(0).equals("window_start")
                && columns.get(1).equals("window_end")
                && columns.get(3).equals("events");
    }
}
