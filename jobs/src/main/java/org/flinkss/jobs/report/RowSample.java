package org.flinkss.jobs.report;

import java.util.List;

/**
 * The first rows of a table, as text, and how many it has: what the report shows of the late rows a
 * query kept ({@code <table>_late}) and of the lines bronze quarantined.
 *
 * @param table the table
 * @param total its rows
 * @param columns its columns
 * @param rows its first rows, each value as text ({@code null} as an empty string)
 */
public record RowSample(String table, long total, List<String> columns, List<List<String>> rows) {

    /** Rows shown of each table. */
    public static final int SHOWN = 10;

    public RowSample {
        columns = List.copyOf(columns);
        rows = rows.stream().map(List::copyOf).toList();
    }
}
