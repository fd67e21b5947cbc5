package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the JobManager for a checkpoint at once ({@code POST /jobs/<id>/checkpoints}, Flink's manual
 * checkpoint), once for each batch an availableNow run's sources sealed. The next batch of a
 * micro-batch source starts only after a checkpoint holding the previous one; without this it waits
 * for the periodic checkpoint, so a backlog read in many small batches ran at one batch per
 * checkpoint interval, where Spark runs them back to back.
 */
@Internal
public final class CheckpointRequests {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointRequests.class);

    private final JobManagerRest jobManager;
    private long requestedFor = -1;
    private boolean unavailable;

    public CheckpointRequests(JobManagerRest jobManager) {
        this.jobManager = jobManager;
    }

    /**
     * Asks for a checkpoint if {@code sealedBatch} is newer than the batch it last asked one for. A
     * request that fails is not repeated for the same batch: the periodic checkpoint comes anyway.
     */
    public void forBatch(long sealedBatch) {
        if (sealedBatch <= requestedFor || unavailable) {
            return;
        }
        requestedFor = sealedBatch;
        try {
            if (!jobManager.post("/jobs/" + jobManager.jobId() + "/checkpoints", "{}")) {
                LOG.debug(
                        "no checkpoint requested for batch {}: REST refused or unknown",
                        sealedBatch);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // The periodic checkpoint still comes; asking again for every batch would only wait
            // for the same timeout again.
            unavailable = true;
            LOG.info(
                    "cannot ask the JobManager for checkpoints ({}): batches wait for the periodic"
                            + " one",
                    e.toString());
        }
    }

    /** The batch it last asked a checkpoint for, -1 if none. */
    public long requestedFor() {
        return requestedFor;
    }
}
