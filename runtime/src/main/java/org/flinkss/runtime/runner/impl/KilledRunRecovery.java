package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.checkpoint.RunRecords;
import org.flinkss.runtime.progress.ProgressTracker;

import java.util.List;
import java.util.Optional;

/**
 * Keeps the progress of runs whose driver was killed: their operators left progress fragments that
 * no driver merged. What a completed checkpoint of the run's job covers is committed (its rows are
 * in the sinks); the rest was rolled back and is discarded.
 *
 * <p>The stop with a savepoint that ends a run is a checkpoint too, and the last batch of an
 * availableNow run is committed when it completes, but it is no {@code chk-N} of the job: a driver
 * killed after that commit and before it merged the savepoint's fragments lost the batch from the
 * progress log (issue 38), while its rows were in the tables. A completed savepoint of the job
 * commits everything, as the driver does after the stop.
 */
@Internal
public final class KilledRunRecovery {

    private final RunRecords runs;
    private final RestorePoints restorePoints;
    private final ProgressTracker tracker;

    public KilledRunRecovery(
            RunRecords runs, RestorePoints restorePoints, ProgressTracker tracker) {
        this.runs = runs;
        this.restorePoints = restorePoints;
        this.tracker = tracker;
    }

    /** Commits or discards the fragments of every run that left some. */
    public void recover() {
        for (String run : tracker.pendingRuns()) {
            Optional<String> job = runs.jobOf(run);
            List<Long> completed = job.map(restorePoints::completedCheckpoints).orElse(List.of());
            if (job.isPresent() && restorePoints.savepointCompletedBy(job.get())) {
                tracker.commit(run, Long.MAX_VALUE);
            } else if (!completed.isEmpty()) {
                tracker.commit(run, completed.get(completed.size() - 1));
            }
            tracker.discard(run);
        }
    }
}
