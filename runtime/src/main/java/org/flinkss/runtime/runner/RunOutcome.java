package org.flinkss.runtime.runner;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.node.ObjectNode;

import javax.annotation.Nullable;

import java.util.List;

/** The outcome of a run: the batches it committed and where its state now is. */
public class RunOutcome {

    /** The query's id, kept across runs in its checkpoint. */
    public final String queryId;

    public final String runId;

    /** Each batch this run committed, Spark's progress objects, oldest first. */
    public final List<ObjectNode> progress;

    /**
     * Spark's {@code lastProgress}: the last batch's, or after a run with nothing new, one with 0
     * rows and the next batch id.
     */
    public final ObjectNode lastProgress;

    /**
     * The savepoint the run ended with, as Flink's file systems name it (a local folder or on an
     * object store); null if it was stopped from outside and not found.
     */
    @Nullable public final Path savepoint;

    public RunOutcome(
            String queryId,
            String runId,
            List<ObjectNode> progress,
            ObjectNode lastProgress,
            @Nullable Path savepoint) {
        this.queryId = queryId;
        this.runId = runId;
        this.progress = List.copyOf(progress);
        this.lastProgress = lastProgress;
        this.savepoint = savepoint;
    }

    protected RunOutcome(RunOutcome outcome) {
        this(
                outcome.queryId,
                outcome.runId,
                outcome.progress,
                outcome.lastProgress,
                outcome.savepoint);
    }

    public int batches() {
        return progress.size();
    }

    public long numInputRows() {
        return progress.stream().mapToLong(p -> p.path("numInputRows").asLong()).sum();
    }
}
