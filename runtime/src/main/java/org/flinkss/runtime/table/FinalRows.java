package org.flinkss.runtime.table;

import org.flinkss.runtime.table.delta.Completeness;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;

import javax.annotation.Nullable;

import java.time.Instant;
import java.util.List;

/**
 * The final rows of a table of windows ({@code table show <name> --final}): the rows whose window
 * ends at or before the final bound that the table's newest batch commit records ({@link
 * Completeness}). A window of those rows changes in no later batch; the others may, in update mode,
 * still grow.
 *
 * @param columns the table's columns
 * @param rows the final rows, sorted by every column
 * @param total the table's rows, final or not
 * @param version the version read
 * @param completeness what that version's newest batch commit records
 */
public record FinalRows(
        List<String> columns,
        List<List<Object>> rows,
        long total,
        long version,
        Completeness completeness) {

    /**
     * The final rows of table {@code name} as of a version or a time (Delta's time travel) if
     * given, else now.
     *
     * @throws IllegalArgumentException naming the table, when it records no final bound (bronze, a
     *     table not of windows, one in complete mode or written before commits recorded it)
     */
    public static FinalRows of(
            Warehouse warehouse, String name, @Nullable Long version, @Nullable Instant time) {
        DeltaTable table = warehouse.existing(name);
        DeltaSnapshot snapshot = warehouse.snapshot(name, version, time);
        Completeness completeness = table.completenessAt(snapshot.version());
        List<String> columns = snapshot.rowType().getFieldNames();
        int column =
                completeness.finalColumn() == null
                        ? -1
                        : columns.indexOf(completeness.finalColumn());
        if (completeness.finalBefore() == null || column < 0) {
            throw new IllegalArgumentException(
                    "table "
                            + name
                            + " records no final windows as of version "
                            + snapshot.version()
                            + ": only a windowed query in append or update mode records in each"
                            + " commit which windows are final (flinkss.finalBefore), and this"
                            + " table's newest batch commit has none (bronze and other tables"
                            + " without windows, complete mode, or a table written before"
                            + " commits recorded it: run its query once more). Leave --final out"
                            + " to see every row");
        }
        Instant bound = Instant.ofEpochMilli(completeness.finalBefore());
        List<List<Object>> all = Warehouse.sortedValues(snapshot);
        List<List<Object>> rows =
                all.stream()
                        .filter(r -> r.get(column) instanceof Instant end && !end.isAfter(bound))
                        .toList();
        return new FinalRows(columns, rows, all.size(), snapshot.version(), completeness);
    }

    /** The bound as text: {@code windows ending at or before 2025-03-01T00:05:00.000Z}. */
    public String describe() {
        return "final: rows whose "
                + completeness.finalColumn()
                + " is at or before "
                + completeness.parameters().get(Completeness.FINAL_BEFORE)
                + " (version "
                + version
                + "): "
                + rows.size()
                + " of "
                + total
                + " rows";
    }
}
