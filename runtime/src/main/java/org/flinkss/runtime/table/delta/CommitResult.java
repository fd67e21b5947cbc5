package org.flinkss.runtime.table.delta;

/**
 * What {@link DeltaTable#commit} did with a batch.
 *
 * @param committed false when the table already held the batch (a replay): nothing was written
 * @param version the table version the batch's commit made, or the table's version when skipped
 * @param committedBatch when skipped, the newest batch id the table holds for the query
 */
public record CommitResult(
        boolean committed, String appId, long batchId, long version, long committedBatch) {

    /** For progress lines and logs: what a user reads after a replay. */
    public String describe() {
        return committed
                ? "batch " + batchId + " of " + appId + " committed as version " + version
                : "batch "
                        + batchId
                        + " of "
                        + appId
                        + " skipped: the table already holds batches up to "
                        + committedBatch
                        + " of that query (version "
                        + version
                        + ")";
    }
}
