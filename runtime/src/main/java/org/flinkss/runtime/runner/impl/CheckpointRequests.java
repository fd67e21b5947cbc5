package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import com.fasterxml.jackson.databind.JsonNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.checkpoint.RunRecords;

import java.util.Optional;

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
    private long requestedFor = RunRecords.NO_CHECKPOINT_WANTED;

    /** The JobManager's id of the last request, until its answer has been read. */
    private String pendingTrigger;

    private boolean unavailable;

    public CheckpointRequests(JobManagerRest jobManager) {
        this.jobManager = jobManager;
    }

    /**
     * Asks for a checkpoint if {@code sealedBatch} is newer than the batch it last asked one for
     * (-1: the one before a fresh query's first batch, which waits for a checkpoint holding the
     * readers' starting watermark). A request that the JobManager refuses is not repeated for the
     * same batch: the periodic checkpoint comes anyway.
     *
     * <p>The answer of the last request is read at each call until it is there. Flink's REST keeps
     * a manual checkpoint's answer until someone reads it, and an embedded cluster with an unread
     * one took 30 s to shut down at the end of the run. An answer that says the checkpoint failed
     * makes the request again: Flink declines a checkpoint while a task is still starting ("Not all
     * required tasks are currently running"), which is when a run's first batch asks for one, as
     * soon as the sources run; waiting for the periodic one then cost a fresh run up to its whole
     * interval.
     */
    public void forBatch(long sealedBatch) {
        if (unavailable) {
            return;
        }
        try {
            boolean failed = pendingTrigger != null && answerSaysFailed();
            if (sealedBatch == RunRecords.NO_CHECKPOINT_WANTED
                    || sealedBatch < requestedFor
                    || (sealedBatch == requestedFor && !failed)) {
                return;
            }
            requestedFor = sealedBatch;
            Optional<JsonNode> answer =
                    jobManager.postForJson("/jobs/" + jobManager.jobId() + "/checkpoints", "{}");
            pendingTrigger = answer.map(a -> a.path("request-id").asText(null)).orElse(null);
            if (answer.isEmpty()) {
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
     * Reads the answer of the pending request ({@code GET /jobs/<id>/checkpoints/<request id>}):
     * true if the checkpoint failed; once an answer is there, the request is no longer pending.
     */
    private boolean answerSaysFailed() throws Exception {
        Optional<JsonNode> status =
                jobManager.get("/jobs/" + jobManager.jobId() + "/checkpoints/" + pendingTrigger);
        if (status.isEmpty()
                || !"COMPLETED".equals(status.get().path("status").path("id").asText())) {
            return false;
        }
        pendingTrigger = null;
        JsonNode failure = status.get().path("operation").path("failure-cause");
        if (!failure.isMissingNode() && !failure.isNull()) {
            LOG.debug("requested checkpoint failed, asked again: {}", failure);
            return true;
        }
        return false;
    }

    /**
     * The batch it last asked a checkpoint for, {@link RunRecords#NO_CHECKPOINT_WANTED} if none.
     */
    public long requestedFor() {
        return requestedFor;
    }
}
