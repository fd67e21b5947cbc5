package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.progress.SourcePlan;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The plans the sources of an availableNow run write at its start ({@code runs/<run>/plan-<source>
 * .json}), handed to the run's progress listeners once each, as soon as the driver sees them. The
 * driver looks before it merges a checkpoint's progress, so a plan is told before the first batch.
 */
@Internal
final class SourcePlans {

    private final CheckpointLayout layout;
    private final String runId;
    private final ProgressTracker tracker;
    private final List<String> untold;

    SourcePlans(
            CheckpointLayout layout, String runId, List<String> sources, ProgressTracker tracker) {
        this.layout = layout;
        this.runId = runId;
        this.tracker = tracker;
        this.untold = new ArrayList<>(sources);
    }

    /** Tells the plans written since the last call. */
    void tellNew() {
        for (Iterator<String> it = untold.iterator(); it.hasNext(); ) {
            Path plan = layout.plan(runId, it.next());
            try {
                if (Storage.exists(plan)) {
                    tracker.plan(JsonFiles.read(plan, SourcePlan.class));
                    it.remove();
                }
            } catch (IOException e) {
                // Not there yet, or not readable now: looked at again at the next poll.
            }
        }
    }
}
