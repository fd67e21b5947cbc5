package org.flinkss.runtime.table.delta;

import java.util.List;

/** What {@link DeltaTable#vacuum} deleted (or, in a dry run, would delete). */
public record VacuumResult(List<String> deleted, long bytes, boolean dryRun) {

    public VacuumResult {
        deleted = List.copyOf(deleted);
    }
}
