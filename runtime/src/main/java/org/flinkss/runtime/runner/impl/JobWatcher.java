package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.checkpoint.RunRecords;
import org.flinkss.runtime.progress.ProgressTracker;

import javax.annotation.Nullable;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Watches a running job until the run is to stop: commits each batch's progress as the checkpoint
 * that carries it completes, and tells when every source has read what an availableNow run is to
 * read, when a timed run's time is up, or when someone stopped the job from outside. A job that
 * fails or is cancelled ends the run with its explained cause, and so does a job that restarts
 * after a failure every restart would meet again, which the watcher cancels.
 */
@Internal
public final class JobWatcher {

    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration HISTORY_REFRESH = Duration.ofMillis(200);

    /** Why the watch ended with the job still to be stopped, or already stopped. */
    public enum Ending {
        /** availableNow: every source has read what it planned; stop the job. */
        CAUGHT_UP,
        /** A timed run (processing-time, continuous) ran for its time; stop the job. */
        TIME_UP,
        /**
         * The job finished by itself: the sources never end, so it was stopped with a savepoint
         * from outside ({@code flink stop}), which committed everything.
         */
        STOPPED_FROM_OUTSIDE
    }

    private final JobClient client;
    private final String queryName;
    private final CheckpointLayout layout;
    private final String runId;
    private final List<String> sources;
    private final boolean availableNow;
    @Nullable private final Duration runFor;
    private final ProgressTracker tracker;
    private final FailureExplainer failures;
    private final RestartNotes restartNotes;
    @Nullable private final CheckpointRequests checkpointRequests;

    /**
     * @param sources the names of the job's sources
     * @param availableNow whether the run ends once its sources caught up
     * @param runFor how long a run that is not availableNow lasts, or null for until interrupted
     * @param notes where a line is printed for each failure the job restarts after
     * @param checkpointRequests asks for a checkpoint as soon as a batch of an availableNow run is
     *     sealed, or null to wait for the periodic ones
     */
    public JobWatcher(
            JobClient client,
            String queryName,
            CheckpointLayout layout,
            String runId,
            List<String> sources,
            boolean availableNow,
            @Nullable Duration runFor,
            ProgressTracker tracker,
            FailureExplainer failures,
            PrintStream notes,
            @Nullable CheckpointRequests checkpointRequests) {
        this.client = client;
        this.queryName = queryName;
        this.layout = layout;
        this.runId = runId;
        this.sources = List.copyOf(sources);
        this.availableNow = availableNow;
        this.runFor = runFor;
        this.tracker = tracker;
        this.failures = failures;
        this.restartNotes = new RestartNotes(queryName, notes);
        this.checkpointRequests = checkpointRequests;
    }

    /**
     * Returns once the run is to end.
     *
     * @throws QueryException if the job failed or was cancelled
     */
    public Ending watch() {
        String jobId = client.getJobID().toString();
        RestorePoints restorePoints = new RestorePoints(layout);
        RunRecords runs = new RunRecords(layout);
        long committedUpTo = -1;
        long deadline = runFor == null ? Long.MAX_VALUE : System.nanoTime() + runFor.toNanos();
        SourcePlans plans =
                new SourcePlans(layout, runId, availableNow ? sources : List.of(), tracker);
        while (true) {
            JobStatus status = JobStatuses.of(client);
            if (status == JobStatus.RESTARTING || status == JobStatus.FAILING) {
                // An embedded cluster shuts down as its job fails: read the failures while it runs.
                failures.history().refreshAtMostEvery(HISTORY_REFRESH);
                if (status == JobStatus.RESTARTING) {
                    List<ExceptionHistory.Failure> history = failures.history().failures();
                    Optional<String> repeating = FailureExplainer.repeating(history);
                    if (repeating.isPresent()) {
                        cancel(restorePoints, jobId, runId, committedUpTo);
                        throw ended("failed", repeating.get());
                    }
                    restartNotes.noteNew(history);
                }
            }
            if (status.isGloballyTerminalState()) {
                // The batches of the checkpoints that completed before the end are committed
                // (a cancel can come just after one): record them before saying how it ended.
                committedUpTo = recordCompleted(restorePoints, jobId, runId, committedUpTo);
                if (status == JobStatus.FAILED || status == JobStatus.CANCELED) {
                    throw ended(status.name().toLowerCase(), failures.cause());
                }
                return Ending.STOPPED_FROM_OUTSIDE;
            }
            plans.tellNew();
            committedUpTo = recordCompleted(restorePoints, jobId, runId, committedUpTo);
            if (availableNow && runs.caughtUp(runId, sources)) {
                return Ending.CAUGHT_UP;
            }
            // A real-time run's sources ask too, once, for the checkpoint their start waits for.
            if (checkpointRequests != null && status == JobStatus.RUNNING) {
                checkpointRequests.forBatch(runs.checkpointWanted(runId, sources));
            }
            if (!availableNow && System.nanoTime() > deadline) {
                return Ending.TIME_UP;
            }
            JobStatuses.sleep(POLL);
        }
    }

    private QueryException ended(String how, String cause) {
        return new QueryException(
                "query '"
                        + queryName
                        + "' "
                        + how
                        + ": "
                        + cause
                        + "\nThe checkpoint "
                        + layout
                        + " keeps what was committed; fix the cause and run it again.");
    }

    /**
     * Cancels the job, which a failure that every restart meets again keeps restarting, and records
     * the batches of the checkpoints that completed before it.
     */
    private void cancel(
            RestorePoints restorePoints, String jobId, String runId, long committedUpTo) {
        try {
            client.cancel().get(1, TimeUnit.MINUTES);
        } catch (ExecutionException | TimeoutException e) {
            // It may have ended meanwhile: the error to give is the failure, not the cancel's.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        recordCompleted(restorePoints, jobId, runId, committedUpTo);
    }

    /** Records the batches of checkpoints completed since {@code committedUpTo}; the new mark. */
    private long recordCompleted(
            RestorePoints restorePoints, String jobId, String runId, long committedUpTo) {
        List<Long> completed = restorePoints.completedCheckpoints(jobId);
        if (!completed.isEmpty() && completed.get(completed.size() - 1) > committedUpTo) {
            committedUpTo = completed.get(completed.size() - 1);
            tracker.commit(runId, committedUpTo);
        }
        return committedUpTo;
    }
}
