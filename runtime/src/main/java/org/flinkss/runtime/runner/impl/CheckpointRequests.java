package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.checkpoint.RunRecords;

import java.time.Duration;
import java.util.function.LongSupplier;

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

    /** How long a request may go without a completed checkpoint before it is made again. */
    static final Duration RETRY = Duration.ofMillis(500);

    private final JobManagerRest jobManager;
    private final LongSupplier nanoTime;
    private long requestedFor = RunRecords.NO_CHECKPOINT_WANTED;
    private long requestedAtNanos;
    private long completedAtRequest;
    private boolean unavailable;

    public CheckpointRequests(JobManagerRest jobManager) {
        this(jobManager, System::nanoTime);
    }

    CheckpointRequests(JobManagerRest jobManager, LongSupplier nanoTime) {
        this.jobManager = jobManager;
        this.nanoTime = nanoTime;
    }

    /**
     * Asks for a checkpoint if {@code sealedBatch} is newer than the batch it last asked one for
     * (-1: the one before a fresh query's first batch, which waits for a checkpoint holding the
     * readers' starting watermark). A request that the JobManager refuses is not repeated for the
     * same batch: the periodic checkpoint comes anyway. One that it takes but that no completed
     * checkpoint follows within {@link #RETRY} is made again: Flink declines a checkpoint while a
     * task is still starting ("Not all required tasks are currently running"), which is when the
     * first batch asks for one, as soon as the sources run; waiting for the periodic one then cost
     * a fresh run up to its whole interval.
     *
     * @param newestCompleted the newest checkpoint of the job known to have completed, -1 if none
     */
    public void forBatch(long sealedBatch, long newestCompleted) {
        if (unavailable || sealedBatch == RunRecords.NO_CHECKPOINT_WANTED) {
            return;
        }
        boolean unanswered =
                sealedBatch == requestedFor
                        && newestCompleted <= completedAtRequest
                        && nanoTime.getAsLong() - requestedAtNanos > RETRY.toNanos();
        if (sealedBatch < requestedFor || (sealedBatch == requestedFor && !unanswered)) {
            return;
        }
        requestedFor = sealedBatch;
        requestedAtNanos = nanoTime.getAsLong();
        completedAtRequest = newestCompleted;
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

    /**
     * The batch it last asked a checkpoint for, {@link RunRecords#NO_CHECKPOINT_WANTED} if none.
     */
    public long requestedFor() {
        return requestedFor;
    }
}
