package org.flinkss.runtime.state;

import org.apache.flink.core.fs.Path;

/**
 * A restore point of a query (a retained checkpoint or the savepoint a run ended with) and the
 * batch whose state it holds.
 *
 * @param batch the last batch committed when it was taken; -1 before the first batch
 * @param location the restore point's folder (with its {@code _metadata})
 * @param savepoint a savepoint (a run's end), else a checkpoint
 * @param shown the location as messages name it (a local folder, or a URI)
 */
public record StatePoint(long batch, Path location, boolean savepoint, String shown) {

    /** "savepoint ... (batch 3)", for messages and headers. */
    public String describe() {
        return (savepoint ? "savepoint " : "checkpoint ")
                + shown
                + (batch < 0 ? " (before the first batch)" : " (batch " + batch + ")");
    }
}
