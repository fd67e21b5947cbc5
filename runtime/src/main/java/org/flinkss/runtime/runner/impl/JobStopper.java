package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.scheduler.stopwithsavepoint.StopWithSavepointStoppingException;
import org.apache.flink.util.ExceptionUtils;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.storage.Storage;

import java.util.concurrent.TimeUnit;

/**
 * Stops a job with a savepoint <em>without draining</em>: open windows stay in state and no {@code
 * MAX_WATERMARK} closes them, so the next run goes on where this one stopped. A stop that Flink
 * refuses while the job still runs is tried again ({@link StopRetries}); what a failed stop means
 * is read from the job's status and the failure's type ({@link #classify}), never from its message.
 */
@Internal
public final class JobStopper {

    /** What a failed attempt to stop means. */
    enum Failure {
        /** The job still runs (e.g. some tasks not running yet): try again. */
        RETRY,
        /** The savepoint was taken, but the job failed while committing its last batch. */
        COMMIT_FAILED_AFTER_SAVEPOINT,
        /** The job ended without a savepoint. */
        JOB_ENDED
    }

    private final JobClient client;
    private final String queryName;
    private final Path savepoints;
    private final FailureExplainer failures;
    private final StopRetries retries;

    /** Whether the job failed over while the last {@link #stop} was trying to stop it. */
    private boolean failedOverWhileStopping;

    /**
     * @param savepoints where the savepoint goes: the query's {@code savepoints/}
     */
    public JobStopper(
            JobClient client,
            String queryName,
            Path savepoints,
            FailureExplainer failures,
            StopRetries retries) {
        this.client = client;
        this.queryName = queryName;
        this.savepoints = savepoints;
        this.failures = failures;
        this.retries = retries;
    }

    /**
     * Stops the job and waits for its end; returns the savepoint.
     *
     * @throws CommitAfterSavepointFailed if the savepoint was taken but the last commit failed
     * @throws QueryException if the job ended otherwise, or every attempt was refused
     */
    public Path stop() {
        Exception last = null;
        failedOverWhileStopping = false;
        for (int attempt = 1; ; attempt++) {
            try {
                String path =
                        client.stopWithSavepoint(
                                        false, savepoints.toString(), SavepointFormatType.CANONICAL)
                                .get(5, TimeUnit.MINUTES);
                client.getJobExecutionResult().get(5, TimeUnit.MINUTES);
                // A local path Flink may print without a scheme.
                Path savepoint = Storage.location(path);
                return Storage.isLocal(savepoint)
                        ? RestorePoints.location(Storage.localFile(savepoint, "a savepoint"))
                        : savepoint;
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    throw new QueryException(
                            "query '" + queryName + "': interrupted while stopping");
                }
                last = e;
                JobStatus status = JobStatuses.of(client);
                switch (classify(e, status)) {
                    case COMMIT_FAILED_AFTER_SAVEPOINT:
                        throw new CommitAfterSavepointFailed(
                                "query '"
                                        + queryName
                                        + "' took its savepoint but failed to commit its last"
                                        + " batch: "
                                        // Whole: the first line is Flink's "failed during
                                        // stopping"; the task's exception is in the causes.
                                        + failures.cause(),
                                e);
                    case JOB_ENDED:
                        throw new QueryException(
                                "query '"
                                        + queryName
                                        + "' ended ("
                                        + status
                                        + ") while stopping with a savepoint: "
                                        + failures.cause(),
                                e);
                    default:
                        if (failedOver(e, status)) {
                            // Restored from its last checkpoint: the next attempt stops it
                            // wherever it has got to again.
                            failedOverWhileStopping = true;
                        }
                        if (!retries.retriesAfter(attempt)) {
                            throw new QueryException(
                                    "query '"
                                            + queryName
                                            + "' could not stop with a savepoint into "
                                            + savepoints
                                            + " after "
                                            + retries.attempts()
                                            + " attempts: "
                                            + ExceptionUtils.stringifyException(last),
                                    last);
                        }
                        JobStatuses.sleep(retries.pauseAfter(attempt));
                }
            }
        }
    }

    /**
     * Whether the job failed over while the last {@link #stop} tried to stop it, and so was
     * stopped, at the end, wherever its restore from the last checkpoint had got to: an
     * availableNow run may then not have read everything it was to read.
     */
    public boolean failedOverWhileStopping() {
        return failedOverWhileStopping;
    }

    /**
     * Whether a failed stop, with the job's status after it, says the job failed over: Flink took
     * the savepoint, then a task failed before the job ended, and it restarts the job from its last
     * checkpoint ({@link StopWithSavepointStoppingException}, also once the job runs again); or the
     * job is failing or restarting. A stop refused while every task still runs is not one.
     */
    static boolean failedOver(Throwable stopFailure, JobStatus statusAfter) {
        return statusAfter == JobStatus.FAILING
                || statusAfter == JobStatus.RESTARTING
                || Throwables.isCausedBy(stopFailure, StopWithSavepointStoppingException.class);
    }

    /**
     * What a failed stop means, from the job's status after it and the failure's type: Flink
     * reports a savepoint taken on a job that then failed as {@link
     * StopWithSavepointStoppingException} (through the REST API as a serialized copy of it).
     */
    static Failure classify(Throwable stopFailure, JobStatus statusAfter) {
        if (!statusAfter.isGloballyTerminalState()) {
            return Failure.RETRY;
        }
        return Throwables.isCausedBy(stopFailure, StopWithSavepointStoppingException.class)
                ? Failure.COMMIT_FAILED_AFTER_SAVEPOINT
                : Failure.JOB_ENDED;
    }
}
