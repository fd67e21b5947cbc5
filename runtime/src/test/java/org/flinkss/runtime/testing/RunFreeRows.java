package org.flinkss.runtime.testing;

import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.RowValues;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A table's rows with the column naming the run that wrote them ({@code run_id}, in the late and
 * skipped-files tables) left out, so that two runs over the same data compare equal, and the run
 * ids the table holds, so that a test can say how many runs wrote it.
 */
public final class RunFreeRows {

    public static final String RUN_ID = "run_id";

    private RunFreeRows() {}

    /** The current version's rows without {@code run_id}, sorted by every remaining column. */
    public static List<List<Object>> of(Warehouse warehouse, String table) {
        DeltaSnapshot snapshot = warehouse.snapshot(table);
        int runId = runIdColumn(snapshot.rowType());
        List<List<Object>> rows = new ArrayList<>();
        for (List<Object> row : Warehouse.sortedValues(snapshot)) {
            List<Object> kept = new ArrayList<>(row);
            if (runId >= 0) {
                kept.remove(runId);
            }
            rows.add(kept);
        }
        rows.sort(RowValues.ORDER);
        return rows;
    }

    /** The distinct run ids in a table, empty when it has no {@code run_id} column or no rows. */
    public static Set<String> runIds(Warehouse warehouse, String table) {
        DeltaSnapshot snapshot = warehouse.snapshot(table);
        int runId = runIdColumn(snapshot.rowType());
        Set<String> ids = new TreeSet<>();
        if (runId >= 0) {
            for (List<Object> row : Warehouse.sortedValues(snapshot)) {
                ids.add(String.valueOf(row.get(runId)));
            }
        }
        return ids;
    }

    private static int runIdColumn(RowType type) {
        return type.getFieldNames().indexOf(RUN_ID);
    }
}
