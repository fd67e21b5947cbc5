package org.flinkss.runtime.source.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.InstantiationUtil;

import org.flinkss.runtime.progress.SourcePlan;
import org.flinkss.runtime.source.SplitPlanner;
import org.flinkss.runtime.source.WorkSplit;

import javax.annotation.Nullable;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a micro-batch source would read in the next run ({@code run --dry-run}): its enumerator's
 * state as a restore point holds it, replayed on a copy of its planner, which looks at the source
 * (lists the landing folder, asks Kafka for its offsets) and writes nothing.
 */
@Internal
public final class SourcePreview {

    /** How many of the next batch's splits a preview names; the rest are counted. */
    static final int NAMED_SPLITS = 5;

    /**
     * @param nextBatchId the id the next planned batch gets
     * @param unfinished the batch a stop or kill left unfinished, read again first, or null
     * @param backlog what the batches after it read up to what exists now, if the planner can tell
     * @param nextSplits the first splits of the next planned batch, described
     * @param moreSplits how many more splits the next planned batch has
     */
    public record Preview(
            String source,
            long nextBatchId,
            @Nullable Unfinished unfinished,
            Optional<SourcePlan.Backlog> backlog,
            List<String> nextSplits,
            int moreSplits,
            String limit) {}

    /** A batch that was planned and not done: the next run reads its unread splits first. */
    public record Unfinished(long batchId, int splits, int unread) {}

    private SourcePreview() {}

    /**
     * The preview of {@code source}, restored from {@code coordinatorState} (the bytes Flink keeps
     * for the source's coordinator in a restore point), or from its start if that is null.
     *
     * @throws IOException if the source cannot be read, or the state is not this source's
     */
    public static <S extends WorkSplit> Preview of(
            MicroBatchSource<?, S> source, @Nullable byte[] coordinatorState) throws IOException {
        EnumeratorState<S> state =
                coordinatorState == null ? null : enumeratorState(source, coordinatorState);
        SplitPlanner<S> planner = copy(source.planner());
        planner.restore(state == null ? null : state.plannerCommitted);
        long nextBatchId = state == null ? 0 : state.nextBatchId;
        Unfinished unfinished = null;
        if (state != null && state.inFlight != null) {
            EnumeratorState.InFlight<S> batch = state.inFlight;
            unfinished =
                    new Unfinished(batch.batchId, batch.splits.size(), batch.unassigned.size());
            // Its files or offsets are the run's first read, not part of the batches after it.
            planner.commit(batch.splits);
        }
        planner.refreshTarget();
        Optional<SourcePlan.Backlog> backlog = planner.backlog(source.spec().readLimit());
        List<S> next = planner.nextBatch(nextBatchId, source.spec().readLimit());
        List<String> named = new ArrayList<>();
        for (S split : next.subList(0, Math.min(NAMED_SPLITS, next.size()))) {
            named.add(split.describe());
        }
        return new Preview(
                source.spec().name(),
                nextBatchId,
                unfinished,
                backlog,
                named,
                next.size() - named.size(),
                source.spec().readLimit().toString());
    }

    /**
     * The enumerator's state from the coordinator's bytes: Flink's {@code SourceCoordinator} writes
     * its serde version, the enumerator serializer's version, the length, then the enumerator's own
     * bytes.
     */
    private static <S extends WorkSplit> EnumeratorState<S> enumeratorState(
            MicroBatchSource<?, S> source, byte[] coordinatorState) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(coordinatorState))) {
            int serde = in.readInt();
            if (serde != 0 && serde != 1) {
                throw new IOException(
                        "the state of source '"
                                + source.spec().name()
                                + "' was written by an unknown Flink coordinator version "
                                + serde);
            }
            int version = in.readInt();
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            return source.getEnumeratorCheckpointSerializer().deserialize(version, bytes);
        }
    }

    private static <S extends WorkSplit> SplitPlanner<S> copy(SplitPlanner<S> planner)
            throws IOException {
        try {
            return InstantiationUtil.clone(planner, planner.getClass().getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IOException("cannot copy the planner " + planner.getClass().getName(), e);
        }
    }
}
