package org.flinkss.runtime.checkpoint;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.Objects;

/**
 * One run of one query, as the operators of its job see it: where they report (the query's {@link
 * CheckpointLayout}) and under which run. The runner makes one per run and every operator that
 * reports progress carries it; nothing else about the run reaches the operators.
 */
public final class RunScope implements Serializable {

    private static final long serialVersionUID = 1L;

    private final CheckpointLayout layout;
    private final String runId;

    public RunScope(CheckpointLayout layout, String runId) {
        this.layout = Objects.requireNonNull(layout);
        this.runId = Objects.requireNonNull(runId);
    }

    public CheckpointLayout layout() {
        return layout;
    }

    public String runId() {
        return runId;
    }

    /** Where this run's operators leave their reports of checkpoint {@code checkpointId}. */
    public Path fragments(long checkpointId) {
        return layout.fragments(runId, checkpointId);
    }

    /** Written by source {@code source} once it has read everything this run is to read. */
    public Path caughtUpMarker(String source) {
        return layout.caughtUpMarker(runId, source);
    }

    @Override
    public String toString() {
        return "run " + runId + " of " + layout;
    }
}
