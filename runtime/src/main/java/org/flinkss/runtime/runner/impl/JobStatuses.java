package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;

import org.flinkss.runtime.QueryException;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** A job's status as the runner reads it, and the runner's pause between two looks. */
@Internal
final class JobStatuses {

    private JobStatuses() {}

    /**
     * The job's status; once the cluster no longer knows the job (an embedded cluster after a
     * stop), FINISHED or FAILED as its result says.
     */
    static JobStatus of(JobClient client) {
        try {
            return client.getJobStatus().get(1, TimeUnit.MINUTES);
        } catch (Exception e) {
            try {
                client.getJobExecutionResult().get(10, TimeUnit.SECONDS);
                return JobStatus.FINISHED;
            } catch (Exception failed) {
                return JobStatus.FAILED;
            }
        }
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryException("interrupted");
        }
    }
}
