package org.flinkss.jobs.recovery;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.table.Warehouse;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every table of a warehouse, sorted, without what names the run that wrote a row (the run id of a
 * {@code _late} row): what two runs over the same input must agree on.
 */
final class SameTables {

    private SameTables() {}

    static Map<String, List<List<Object>>> of(Path warehouse) {
        Warehouse w = new Warehouse(warehouse);
        Map<String, List<List<Object>>> tables = new TreeMap<>();
        for (String table : w.tables()) {
            List<List<Object>> rows = new ArrayList<>();
            for (List<Object> row : w.sortedValues(table)) {
                // A late row ends with the id of the run that dropped it.
                rows.add(table.endsWith("_late") ? row.subList(0, row.size() - 1) : row);
            }
            tables.put(table, rows);
        }
        return tables;
    }

    /** Table name and row count, for a message. */
    static Map<String, Integer> counts(Map<String, List<List<Object>>> tables) {
        Map<String, Integer> counts = new TreeMap<>();
        tables.forEach((name, rows) -> counts.put(name, rows.size()));
        return counts;
    }
}
