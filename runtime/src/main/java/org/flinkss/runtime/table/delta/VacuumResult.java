package org.flinkss.runtime.table.delta;

import java.util.List;

/**
 * What {@link DeltaTable#vacuum} deleted (or, in a dry run, would delete), and how many
 * unreferenced files it kept because the table's writer staged them for a batch it has not
 * committed yet.
 */
public record VacuumResult(List<String> deleted, long bytes, boolean dryRun, int keptStaged) {

    public VacuumResult {
        deleted = List.copyOf(deleted);
    }

    public VacuumResult(List<String> deleted, long bytes, boolean dryRun) {
        this(deleted, bytes, dryRun, 0);
    }
}
