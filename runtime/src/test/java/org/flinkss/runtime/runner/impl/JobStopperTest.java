package org.flinkss.runtime.runner.impl;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.flink.runtime.scheduler.stopwithsavepoint.StopWithSavepointStoppingException;
import org.apache.flink.util.FlinkException;
import org.apache.flink.util.SerializedThrowable;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a failed stop with savepoint means, and how often it is tried again. */
class JobStopperTest {

    private static final StopWithSavepointStoppingException SAVEPOINT_TAKEN_COMMIT_FAILED =
            new StopWithSavepointStoppingException(
                    "file:/data/_cp/bronze/savepoints/savepoint-1", new JobID());

    @Test
    void aStopRefusedWhileTheJobRunsIsTriedAgain() {
        Throwable refused =
                new ExecutionException(
                        new CheckpointException(
                                CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING));

        assertThat(JobStopper.classify(refused, JobStatus.RUNNING))
                .isEqualTo(JobStopper.Failure.RETRY);
        // Even Flink's "savepoint taken" failure: while the job runs, its end is still to come.
        assertThat(JobStopper.classify(SAVEPOINT_TAKEN_COMMIT_FAILED, JobStatus.RESTARTING))
                .isEqualTo(JobStopper.Failure.RETRY);
    }

    @Test
    void aSavepointTakenOnAJobThatThenFailedIsToldByItsType() {
        // Embedded: the exception itself, wrapped by the future.
        assertThat(
                        JobStopper.classify(
                                new ExecutionException(SAVEPOINT_TAKEN_COMMIT_FAILED),
                                JobStatus.FAILED))
                .isEqualTo(JobStopper.Failure.COMMIT_FAILED_AFTER_SAVEPOINT);
        // On a cluster: RestClusterClient hands on the SavepointInfo's serialized failure cause.
        assertThat(
                        JobStopper.classify(
                                new ExecutionException(
                                        new CompletionException(
                                                new SerializedThrowable(
                                                        SAVEPOINT_TAKEN_COMMIT_FAILED))),
                                JobStatus.FAILED))
                .isEqualTo(JobStopper.Failure.COMMIT_FAILED_AFTER_SAVEPOINT);
    }

    @Test
    void aJobThatEndedOtherwiseIsNotTakenForOneWithASavepointWhateverTheMessageSays() {
        Throwable sameWords =
                new ExecutionException(
                        new FlinkException(SAVEPOINT_TAKEN_COMMIT_FAILED.getMessage()));

        assertThat(JobStopper.classify(sameWords, JobStatus.FAILED))
                .isEqualTo(JobStopper.Failure.JOB_ENDED);
        assertThat(
                        JobStopper.classify(
                                new ExecutionException(
                                        new CheckpointException(
                                                CheckpointFailureReason.JOB_FAILOVER_REGION)),
                                JobStatus.CANCELED))
                .isEqualTo(JobStopper.Failure.JOB_ENDED);
    }

    @Test
    void aStopThatFailsWhileTheJobFailsOverIsToldFromOneRefusedWhileEveryTaskRuns() {
        Throwable refused =
                new ExecutionException(
                        new CheckpointException(
                                CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING));
        // Refused while the job deploys or runs: the next attempt stops it where it is.
        assertThat(JobStopper.failedOver(refused, JobStatus.RUNNING)).isFalse();
        assertThat(JobStopper.failedOver(refused, JobStatus.CREATED)).isFalse();
        // The job restarts from its last checkpoint: a later stop ends it wherever that got to.
        assertThat(JobStopper.failedOver(refused, JobStatus.RESTARTING)).isTrue();
        assertThat(JobStopper.failedOver(refused, JobStatus.FAILING)).isTrue();
        // The savepoint was taken, then a task failed: whatever the status, the job failed over.
        assertThat(
                        JobStopper.failedOver(
                                new ExecutionException(SAVEPOINT_TAKEN_COMMIT_FAILED),
                                JobStatus.RUNNING))
                .isTrue();
    }

    @Test
    void theDefaultRetriesAreQuickFirstThenSlowAndEndAfterFiftyAttempts() {
        StopRetries retries = StopRetries.DEFAULT;

        assertThat(retries.pauseAfter(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(retries.pauseAfter(29)).isEqualTo(Duration.ofMillis(100));
        assertThat(retries.pauseAfter(30)).isEqualTo(Duration.ofSeconds(1));
        assertThat(retries.retriesAfter(49)).isTrue();
        assertThat(retries.retriesAfter(50)).isFalse();
        // 29 quick pauses and 20 slow ones: a job gets about 23 s to settle.
        assertThat(retries.totalPause()).isEqualTo(Duration.ofMillis(29 * 100 + 20 * 1000));
    }

    @Test
    void aStopIsTriedAtLeastOnce() {
        assertThat(new StopRetries(1, 0, Duration.ZERO, Duration.ZERO).retriesAfter(1)).isFalse();
        assertThatThrownBy(() -> new StopRetries(0, 0, Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
