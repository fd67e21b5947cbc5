package org.flinkss.runtime.runner;

import org.flinkss.runtime.runner.impl.EarlyMiniCluster;

import javax.annotation.Nullable;

/**
 * The embedded cluster of a query's next run, started by {@link QueryRun#prestart()} before the
 * caller has even built the query, and the id of the run it was started for. The run takes it
 * ({@link QueryRun#run(JobBuilder, PrestartedCluster)}); one that is refused before, or never made,
 * leaves it to {@link #close()}, which shuts it down unless a job has it.
 */
public final class PrestartedCluster implements AutoCloseable {

    private final String query;
    private final String runId;
    @Nullable private EarlyMiniCluster cluster;

    PrestartedCluster(String query, String runId, EarlyMiniCluster cluster) {
        this.query = query;
        this.runId = runId;
        this.cluster = cluster;
    }

    /** The query whose run it was started for. */
    String query() {
        return query;
    }

    /** The id of the run it was started for, which names the run's temporary folder. */
    public String runId() {
        return runId;
    }

    /** Whether a run has taken it (that run then ends it with its job). */
    public synchronized boolean isTaken() {
        return cluster == null;
    }

    /** The cluster, once: a run takes it and closes it itself. */
    @Nullable
    synchronized EarlyMiniCluster take() {
        EarlyMiniCluster taken = cluster;
        cluster = null;
        return taken;
    }

    @Override
    public void close() {
        EarlyMiniCluster left = take();
        if (left != null) {
            left.close();
        }
    }
}
