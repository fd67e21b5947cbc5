package org.flinkss.runtime.table.delta;

/** How a commit changes a table. */
public enum WriteMode {
    /** Adds the batch's files (Spark's append and update output modes). */
    APPEND,
    /**
     * Removes every file of the table and adds the batch's, in one commit (complete output mode):
     * readers see the old result or the new one. Removed files stay until {@link
     * DeltaTable#vacuum}.
     */
    OVERWRITE
}
