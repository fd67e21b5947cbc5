package org.flinkss.runtime.table.delta;

/**
 * A commit planned on one version of a table found the table at another when it committed (another
 * writer's commit came between): its removes and rewrites may name files that changed. Nothing was
 * committed; plan again on the table's new version.
 */
public final class TableChangedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long plannedVersion;

    TableChangedException(String table, long plannedVersion, long version) {
        super(
                "Delta table "
                        + table
                        + " is at version "
                        + version
                        + ", not "
                        + plannedVersion
                        + " on which the commit was planned: plan it again");
        this.plannedVersion = plannedVersion;
    }

    /** The version the commit was planned on. */
    public long plannedVersion() {
        return plannedVersion;
    }
}
