package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import com.fasterxml.jackson.databind.JsonNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.checkpoint.RunRecords;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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

    /** How often {@link #readRemainingAnswers} looks again for an answer still on its way. */
    private static final Duration ANSWER_POLL = Duration.ofMillis(50);

    private final JobManagerRest jobManager;
    private long requestedFor = RunRecords.NO_CHECKPOINT_WANTED;

    /** The JobManager's id of the last request, null if none or it was refused. */
    private String lastRequest;

    /**
     * The ids of the requests whose answer has not been read yet: Flink's REST keeps each answer
     * until someone reads it, and an embedded cluster's shutdown waits for that (up to {@code
     * rest.async.store-duration}, 5 minutes; the run gives up after 30 s).
     */
    private final Set<String> unread = new LinkedHashSet<>();

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
     * <p>Reads the answers that have come since the last call. One that says the last request's
     * checkpoint failed makes the request again: Flink declines a checkpoint while a task is still
     * starting ("Not all required tasks are currently running"), which is when a run's first batch
     * asks for one, as soon as the sources run; waiting for the periodic one then cost a fresh run
     * up to its whole interval.
     */
    public void forBatch(long sealedBatch) {
        if (unavailable) {
            return;
        }
        try {
            boolean lastFailed = readAnswersThere();
            if (sealedBatch == RunRecords.NO_CHECKPOINT_WANTED
                    || sealedBatch < requestedFor
                    || (sealedBatch == requestedFor && !lastFailed)) {
                return;
            }
            requestedFor = sealedBatch;
            Optional<JsonNode> answer =
                    jobManager.postForJson("/jobs/" + jobManager.jobId() + "/checkpoints", "{}");
            lastRequest = answer.map(a -> a.path("request-id").asText(null)).orElse(null);
            if (lastRequest != null) {
                unread.add(lastRequest);
            } else {
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
     * Reads every answer not read yet, waiting up to {@code wait} for those still on their way: to
     * be called once the job has ended (a request the job's end overtook is answered as failed at
     * once), so that the embedded cluster shuts down without waiting for them. Gives up quietly at
     * the first error (the JobManager may be gone already).
     */
    public void readRemainingAnswers(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            readAnswersThere();
            while (!unread.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(ANSWER_POLL.toMillis());
                readAnswersThere();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("cannot read the answers of checkpoint requests: {}", e.toString());
        }
        if (!unread.isEmpty()) {
            LOG.debug("answers of {} checkpoint requests left unread", unread.size());
        }
    }

    /**
     * Reads the answers that are there ({@code GET /jobs/<id>/checkpoints/<request id>}); one that
     * is not (an unknown request) will never be. Returns whether the last request's answer came and
     * says its checkpoint failed.
     */
    private boolean readAnswersThere() throws Exception {
        boolean lastFailed = false;
        for (Iterator<String> it = unread.iterator(); it.hasNext(); ) {
            String request = it.next();
            Optional<JsonNode> status =
                    jobManager.get("/jobs/" + jobManager.jobId() + "/checkpoints/" + request);
            if (status.isPresent()
                    && !"COMPLETED".equals(status.get().path("status").path("id").asText())) {
                continue; // still on its way
            }
            it.remove();
            if (request.equals(lastRequest) && status.isPresent() && failed(status.get())) {
                LOG.debug("requested checkpoint failed, asked again: {}", status.get());
                lastFailed = true;
            }
        }
        return lastFailed;
    }

    /**
     * Whether a completed answer says the checkpoint failed. Flink 2.2 answers a declined one with
     * {@code {"status":{"id":"COMPLETED"},"operation":{"failureCause":{...}}}}, and one that was
     * taken with {@code {"status":{"id":"COMPLETED"},"operation":{"checkpointId":N}}}.
     */
    static boolean failed(JsonNode answer) {
        JsonNode operation = answer.path("operation");
        for (String name : List.of("failureCause", "failure-cause")) {
            JsonNode failure = operation.path(name);
            if (!failure.isMissingNode() && !failure.isNull()) {
                return true;
            }
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
