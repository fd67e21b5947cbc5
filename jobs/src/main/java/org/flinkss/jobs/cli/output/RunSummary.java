package org.flinkss.jobs.cli.output;

import org.flinkss.runtime.query.QueryRunner;

/** The line {@code run} prints when a query's run ends. */
public final class RunSummary {

    private RunSummary() {}

    /**
     * {@code bronze: 2 batches, 1000 rows read, last batch id 1}, or {@code bronze: nothing new (0
     * rows read, no new batch; next batch id 2)}.
     */
    public static String of(String query, QueryRunner.Result result) {
        if (result.batches() == 0) {
            return query
                    + ": nothing new (0 rows read, no new batch; next batch id "
                    + result.lastProgress.path("batchId").asLong()
                    + ")";
        }
        return query
                + ": "
                + result.batches()
                + (result.batches() == 1 ? " batch, " : " batches, ")
                + result.numInputRows()
                + " rows read, last batch id "
                + result.lastProgress.path("batchId").asLong();
    }
}
