package org.flinkss.progress;

import java.nio.file.Path;

/**
 * Where a query's run leaves what its operators report, inside the query's checkpoint directory:
 * the checkpoint directory is the one place that the driver, the JobManager and the TaskManagers
 * all reach, on one machine as on a cluster with a shared volume.
 */
public final class RunFiles {

    private RunFiles() {}

    /** Written by a source's enumerator once it has read everything the run is to read. */
    public static Path caughtUpMarker(Path checkpointDir, String runId, String source) {
        return checkpointDir.resolve("runs").resolve(runId).resolve("caught-up-" + source);
    }

    /**
     * Per-checkpoint progress fragments of one run, merged by the driver once the checkpoint
     * completes.
     */
    public static Path fragments(Path checkpointDir, String runId) {
        return checkpointDir.resolve("progress").resolve("pending").resolve(runId);
    }

    public static Path fragmentDir(Path checkpointDir, String runId, long checkpointId) {
        return fragments(checkpointDir, runId).resolve(String.format("%012d", checkpointId));
    }
}
