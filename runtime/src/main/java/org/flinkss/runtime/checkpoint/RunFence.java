package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Fences the jobs of a query's runs: only the job of the run that owns the checkpoint directory may
 * plan a batch or complete a checkpoint (and so commit), and a job whose client is gone stops
 * itself.
 *
 * <p>Why: the lock of a run ({@link CheckpointLock}) is held by its client, the process that
 * started it. Under {@code flink run} the job runs on the cluster, and a killed client (a closed
 * terminal, a dropped ssh) releases the lock while the job goes on. Three things keep such a job
 * from running beside the next run of the query:
 *
 * <ol>
 *   <li>the next run takes the directory ({@link #claim}, {@code fence.json} names it) and the job
 *       of every other run reads that file before it plans a batch and before each checkpoint: a
 *       fenced job fails its checkpoint, so none of its sinks commits again, and stops ({@link
 *       PermanentFailure}, no restart);
 *   <li>the client rewrites {@code runs/<run>/heartbeat} every 2 seconds; a job that sees it
 *       unchanged for its run's client timeout (by the job's own clock) stops the same way;
 *   <li>the next run finds the job of an earlier run through the cluster's REST API, from the run's
 *       {@code job.json}, and cancels it before it restores anything (the runner's {@code
 *       EarlierRunJobs}).
 * </ol>
 */
public final class RunFence {

    private final CheckpointLayout layout;
    private final String runId;
    @Nullable private final Duration clientTimeout;
    @Nullable private String lastBeat;
    private long lastBeatNanos;

    /**
     * The fence as the job of run {@code runId} checks it.
     *
     * @param clientTimeout how long the job goes on without a heartbeat of its client; null for
     *     never
     */
    public RunFence(CheckpointLayout layout, String runId, @Nullable Duration clientTimeout) {
        this.layout = layout;
        this.runId = runId;
        this.clientTimeout = clientTimeout;
        this.lastBeatNanos = System.nanoTime();
    }

    /** Makes {@code runId} the run that owns the directory: the jobs of every other run stop. */
    public static void claim(CheckpointLayout layout, String runId) {
        ObjectNode node = JsonFiles.JSON.createObjectNode();
        node.put("runId", runId);
        node.put("claimed", Instant.now().toString());
        JsonFiles.write(layout.fence(), node);
    }

    /**
     * The run that owns the directory; empty if none claimed it (a directory of older versions).
     */
    public static Optional<String> owner(CheckpointLayout layout) {
        try {
            String run = JsonFiles.readTree(layout.fence()).path("runId").asText("");
            return run.isEmpty() ? Optional.empty() : Optional.of(run);
        } catch (IOException e) {
            return Optional.empty(); // missing; never torn (written by rename)
        }
    }

    /**
     * @throws PermanentFailure if another run owns the directory now
     */
    public void checkOwner() {
        Optional<String> owner = owner(layout);
        if (owner.isPresent() && !owner.get().equals(runId)) {
            throw new PermanentFailure(
                    "run "
                            + runId
                            + " of checkpoint "
                            + layout
                            + " is fenced: run "
                            + owner.get()
                            + " of the same query started since, so this job stops and commits"
                            + " nothing more");
        }
    }

    /**
     * Why this run's job must stop: another run owns the directory, or the client has not been
     * heard from for longer than the run's client timeout. Empty while neither.
     */
    public Optional<String> reasonToStop() {
        try {
            checkOwner();
        } catch (PermanentFailure fenced) {
            return Optional.of(fenced.getMessage());
        }
        Duration timeout = clientTimeout;
        if (timeout == null) {
            return Optional.empty();
        }
        String beat = read(layout.heartbeat(runId));
        long now = System.nanoTime();
        if (beat != null && !beat.equals(lastBeat)) {
            lastBeat = beat;
            lastBeatNanos = now;
            return Optional.empty();
        }
        if (now - lastBeatNanos <= timeout.toNanos()) {
            return Optional.empty();
        }
        return Optional.of(
                "the client of run "
                        + runId
                        + " (the process that started it, e.g. flink run) has not been heard from"
                        + " for "
                        + timeout.toSeconds()
                        + " s: it is gone, so this job stops; the next run of the query continues"
                        + " from checkpoint "
                        + layout);
    }

    @Nullable
    private static String read(Path file) {
        try {
            return Storage.readText(file);
        } catch (IOException e) {
            return null; // not written yet, or being replaced: no new beat
        }
    }
}
