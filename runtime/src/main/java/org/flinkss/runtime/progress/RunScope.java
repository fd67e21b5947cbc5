package org.flinkss.runtime.progress;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLog;
import org.flinkss.runtime.checkpoint.RunFence;
import org.flinkss.runtime.checkpoint.SealedBatch;
import org.flinkss.runtime.checkpoint.SkippedCommit;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * One run of one query, as the operators of its job see it: where they report (the query's {@link
 * CheckpointLayout}) and under which run. The runner makes one per run and every operator that
 * reports progress carries it; nothing else about the run reaches the operators. The logs a run's
 * operators write are reached from here: their progress {@link #fragmentLog fragments}, the batches
 * a source {@link #sealedBatches sealed}, the commits a table {@link #skippedCommits skipped}, and
 * the run's {@link #fence}.
 *
 * <p>Queries (the course's among them) only hand it on to the operators they build; what it says of
 * the checkpoint directory is the engine's.
 */
public final class RunScope implements Serializable {

    private static final long serialVersionUID = 1L;

    private final CheckpointLayout layout;
    private final String runId;
    @Nullable private final Duration clientTimeout;

    /** A run whose job does not watch its client (tests of single operators). */
    public RunScope(CheckpointLayout layout, String runId) {
        this(layout, runId, null);
    }

    /**
     * @param clientTimeout how long the run's job goes on without hearing from its client (its
     *     heartbeat, {@link RunFence}) before it stops itself; null for never
     */
    public RunScope(CheckpointLayout layout, String runId, @Nullable Duration clientTimeout) {
        this.layout = Objects.requireNonNull(layout);
        this.runId = Objects.requireNonNull(runId);
        this.clientTimeout = clientTimeout;
    }

    public CheckpointLayout layout() {
        return layout;
    }

    public String runId() {
        return runId;
    }

    /** How long the job goes on without a heartbeat of its client; null for never. */
    @Nullable
    public Duration clientTimeout() {
        return clientTimeout;
    }

    /** Where the checkpoint is, as messages name it: a local folder, or its URI. */
    public String checkpoint() {
        return layout.toString();
    }

    /** The fragments this run's operators leave at checkpoint {@code checkpointId}. */
    public CheckpointLog<String, Fragment> fragmentLog(long checkpointId) {
        return Fragments.log(layout, runId, checkpointId);
    }

    /** The batches source {@code source} sealed at each checkpoint of this run. */
    public CheckpointLog<Long, SealedBatch> sealedBatches(String source) {
        return SealedBatch.log(layout, runId, source);
    }

    /** The batches this run's table committers skipped as already committed. */
    public CheckpointLog<String, SkippedCommit> skippedCommits() {
        return SkippedCommit.log(layout, runId);
    }

    /** What tells this run's job to stop: another run took the directory, or its client died. */
    public RunFence fence() {
        return new RunFence(layout, runId, clientTimeout);
    }

    /** Where this run's operators leave their reports of checkpoint {@code checkpointId}. */
    public Path fragments(long checkpointId) {
        return layout.fragments(runId, checkpointId);
    }

    /** Written by source {@code source} once it has read everything this run is to read. */
    public Path caughtUpMarker(String source) {
        return layout.caughtUpMarker(runId, source);
    }

    /** Written by source {@code source} of an availableNow run: what it is to read. */
    public Path plan(String source) {
        return layout.plan(runId, source);
    }

    /**
     * Written by source {@code source} of an availableNow run with the id of the batch it sealed,
     * when more are to come: the client asks for a checkpoint at once.
     */
    public Path checkpointWanted(String source) {
        return layout.checkpointWanted(runId, source);
    }

    @Override
    public String toString() {
        return "run " + runId + " of " + layout;
    }
}
