package org.flinkss.runtime.source.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.checkpoint.RunFence;
import org.flinkss.runtime.progress.BatchSummary;
import org.flinkss.runtime.source.GlobalRestartRequest;
import org.flinkss.runtime.source.SourceSpec;
import org.flinkss.runtime.source.SplitPlanner;
import org.flinkss.runtime.source.WorkSplit;
import org.flinkss.runtime.time.Watermarks;
import org.flinkss.runtime.trigger.Trigger;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;

/**
 * Drives micro-batches for one source, as Spark's {@code MicroBatchExecution} does for its offsets:
 * plan a batch, hand its splits to readers, and once every reader is done, fix the batch's
 * watermark ({@code max(event time) - delay}, never going back), have every reader emit it after
 * its records, and only then call the batch sealed.
 *
 * <p>The next batch starts only after a checkpoint that contains the sealed batch has completed.
 * Checkpoint barriers are aligned, so by then every operator has received the sealed batch's
 * watermark from every input channel: each record of the next batch meets exactly the watermark
 * that the previous batch ended with, whatever the parallelism and the order files are read in
 * (Spark's micro-batch rule). It also makes every batch a commit of its own.
 *
 * <p>A batch's splits are written to the source's offset log ({@link BatchPlans}) before any reader
 * gets one, so that a job restarted before the batch reached a checkpoint reads the same batch
 * again (Spark's offset log), instead of planning it anew from a fresh listing.
 *
 * <p>A real-time run ({@link Trigger#isRealTime()}) does not wait for the checkpoint: it looks for
 * new data every {@link Trigger#REAL_TIME_POLL} (a landing folder on an object store once a second:
 * {@link SplitPlanner#realTimeLook}) and starts the next batch as soon as the last one is sealed,
 * so a record waits milliseconds, not a checkpoint interval. Its batches are short steps of the
 * same protocol (plan, watermark after the step's records, seal), their plans not written to the
 * offset log ({@link BatchPlans} says why); a checkpoint commits every step sealed before it, and
 * they are reported as one batch ({@link BatchSummary#merged}). A look that finds nothing new reads
 * no file ({@link #nothingNewInRealTime()}). The watermark still moves at step ends, computed over
 * every reader, but a record of the next step may reach an operator before the last step's
 * watermark has arrived on every input channel: it then meets an older watermark (kept, where
 * Spark's micro-batch would drop it), never a newer.
 *
 * <p>State hand-off follows FLIP-27: a split assigned to a reader belongs to the reader (and its
 * checkpointed state) until it is read; readers report running totals, never deltas, and keep them
 * in their own state until they have emitted the batch's watermark. So no report can be lost or
 * counted twice across a restore.
 */
@Internal
public final class MicroBatchEnumerator<S extends WorkSplit>
        implements SplitEnumerator<MicroBatchSplit<S>, EnumeratorState<S>> {

    private static final Logger LOG = LoggerFactory.getLogger(MicroBatchEnumerator.class);

    /** How often the enumerator checks that its run still owns the checkpoint and has a client. */
    private static final long FENCE_CHECK_MILLIS = 1000;

    private final SplitEnumeratorContext<MicroBatchSplit<S>> context;
    private final SourceSpec spec;
    private final SplitPlanner<S> planner;
    private final EnumeratorState<S> state;
    private final BatchPlans<S> plans;
    private final SourceSignals signals;
    private final RunFence fence;
    private final SplitAssigner<S> assigner;
    private final ReaderStart start;

    /** Restored with a batch still being read: held until {@link #releaseRestoredBatch}. */
    private final boolean restoredReading;

    private final WatermarkNodes nodes;

    /** Readers with nothing to read since their last report, and what they read of the batch. */
    private final Set<Integer> idle = new HashSet<>();

    private final Map<Integer, BatchStats> statsByReader = new HashMap<>();
    private final Set<Integer> watermarkEmitted = new HashSet<>();

    /**
     * Sealed batches not yet in a completed checkpoint, by the checkpoint that first carried them.
     */
    private final TreeMap<Long, List<BatchSummary>> sealedByCheckpoint = new TreeMap<>();

    private final List<BatchSummary> sealedNotSnapshotted = new ArrayList<>();

    /** A batch is sealed; the next may start once a checkpoint after this id completes. */
    private long waitingForCheckpointAfter = -1;

    private boolean waitingForCheckpoint;
    private boolean targetFixed;
    private boolean restartRequested;

    /** In real time: the batch id known to have no plan recorded before a restart; -1 none yet. */
    private long unrecordedBatchId = -1;

    /**
     * @param nodeDelays the delay of each of the source's watermark nodes (none: no watermark)
     */
    public MicroBatchEnumerator(
            SplitEnumeratorContext<MicroBatchSplit<S>> context,
            SourceSpec spec,
            SplitPlanner<S> planner,
            @Nullable EnumeratorState<S> restored,
            List<Long> nodeDelays) {
        this.nodes = new WatermarkNodes(nodeDelays, spec.watermarkPolicy());
        this.context = context;
        this.spec = spec;
        this.planner = planner;
        this.state = restored != null ? restored : new EnumeratorState<>();
        this.plans =
                new BatchPlans<>(
                        spec.scope().layout().offsets(spec.name()), planner.splitSerializer());
        this.signals = new SourceSignals(spec.scope(), spec.name());
        this.fence = spec.scope().fence();
        this.assigner = new SplitAssigner<>(spec.readOrder());
        this.restoredReading = state.inFlight != null && state.inFlight.readDone == null;
        // A batch whose watermark is fixed has nothing left to read: nothing to hold back.
        this.start = new ReaderStart(!nodes.none() && (state.inFlight == null || restoredReading));
    }

    @Override
    public void start() {
        if (spec.trigger().isRealTime()) {
            planner.startRealTime();
        }
        try {
            planner.restore(state.plannerCommitted);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "source '" + spec.name() + "': cannot restore its position: " + e.getMessage(),
                    e);
        }
        Callable<Boolean> refresh =
                () -> {
                    planner.refreshTarget();
                    return true;
                };
        BiConsumer<Boolean, Throwable> plan =
                (ok, error) -> {
                    failIf(error, "cannot list what is available");
                    targetFixed = true;
                    maybeStartBatch();
                };
        if (spec.trigger().isAvailableNow()) {
            // availableNow reads what exists now, and nothing that arrives during the run: its
            // client can say at once how much that is.
            context.callAsync(
                    () -> {
                        planner.refreshTarget();
                        signals.planned(planner.backlog(spec.readLimit()), spec.readLimit());
                        return true;
                    },
                    plan);
        } else {
            long interval =
                    spec.trigger().isRealTime()
                            ? planner.realTimeLook().toMillis()
                            : spec.trigger().interval().toMillis();
            context.callAsync(refresh, plan, 0, interval);
        }
        // A job whose run was fenced, or whose client is gone, stops: RunFence.
        context.callAsync(
                fence::reasonToStop,
                (Optional<String> reason, Throwable error) -> {
                    if (reason != null && reason.isPresent()) {
                        throw new PermanentFailure("source '" + spec.name() + "': " + reason.get());
                    }
                },
                FENCE_CHECK_MILLIS,
                FENCE_CHECK_MILLIS);
    }

    private void failIf(Throwable error, String what) {
        if (error != null) {
            throw new RuntimeException(
                    "source '" + spec.name() + "': " + what + ": " + error.getMessage(), error);
        }
    }

    @Override
    public void addReader(int subtaskId) {
        idle.remove(subtaskId);
        watermarkEmitted.remove(subtaskId);
        start.registered(subtaskId);
        // A reader of a restored job starts from the watermark in force before any record.
        EnumeratorState.InFlight<S> batch = state.inFlight;
        if (batch != null && batch.readDone != null) {
            context.sendEventToSourceReader(
                    subtaskId,
                    new SourceEvents.AdvanceWatermark(
                            batch.batchId, batch.readDone.watermarkAfter));
        } else if (nodes.starting(state.watermark) != Watermarks.NONE) {
            // Named after the last sealed batch: a batch in flight is not done by it.
            context.sendEventToSourceReader(
                    subtaskId,
                    new SourceEvents.AdvanceWatermark(
                            state.lastSealed(), nodes.starting(state.watermark)));
        }
        if (restoredReading && start.over()) {
            context.sendEventToSourceReader(subtaskId, new SourceEvents.ReleaseSplits());
        }
    }

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        // Readers ask with ReaderIdle, which also carries what they read.
    }

    @Override
    public void addSplitsBack(List<MicroBatchSplit<S>> splits, int subtaskId) {
        // Flink restarted a reader from the last checkpoint (a regional failover) but kept this
        // enumerator as it is: batches it sealed since then are ahead of the data, and their
        // watermark was computed from rows that are now rolled back. Failing from here makes the
        // failover global, which restores the enumerator from the same checkpoint as everyone.
        if (!restartRequested) {
            restartRequested = true;
            throw new GlobalRestartRequest(spec.name(), subtaskId);
        }
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (event instanceof SourceEvents.ReaderIdle) {
            onReaderIdle(subtaskId, ((SourceEvents.ReaderIdle) event).stats);
        } else if (event instanceof SourceEvents.WatermarkEmitted) {
            onWatermarkEmitted(subtaskId, ((SourceEvents.WatermarkEmitted) event).batchId);
        } else {
            LOG.warn(
                    "Source '{}' ignores an unknown event {} from reader {}",
                    spec.name(),
                    event,
                    subtaskId);
        }
    }

    private void onReaderIdle(int subtaskId, BatchStats stats) {
        EnumeratorState.InFlight<S> batch = state.inFlight;
        if (batch == null || batch.readDone != null) {
            idle.add(subtaskId);
            if (batch != null) {
                // A reader restored with totals of a batch whose watermark is already fixed.
                context.sendEventToSourceReader(
                        subtaskId,
                        new SourceEvents.AdvanceWatermark(
                                batch.batchId, batch.readDone.watermarkAfter));
            }
            return;
        }
        if (stats.batchId == batch.batchId) {
            statsByReader.put(subtaskId, stats);
        }
        if (!start.over()) {
            idle.add(subtaskId); // given a split once the restored batch is released
            return;
        }
        S next = assigner.take(batch, subtaskId, context.currentParallelism());
        if (next != null) {
            context.assignSplit(MicroBatchSplit.of(next), subtaskId);
            idle.remove(subtaskId);
            return;
        }
        idle.add(subtaskId);
        maybeFinishReading();
    }

    private void maybeFinishReading() {
        EnumeratorState.InFlight<S> batch = state.inFlight;
        if (batch == null || batch.readDone != null || !batch.unassigned.isEmpty()) {
            return;
        }
        int parallelism = context.currentParallelism();
        if (idle.size() < parallelism || context.registeredReaders().size() < parallelism) {
            return;
        }
        BatchStats total = BatchStats.empty();
        for (BatchStats s : statsByReader.values()) {
            total.merge(s);
        }
        BatchSummary summary =
                total.summary(batch.batchId, batch.splits.size(), batch.startedAtMillis);
        summary.watermarkBefore = state.watermark;
        summary.watermarkAfter = nodes.next(total, state.watermark);
        if (nodes.size() > 1) {
            LOG.info(
                    "Source '{}' batch {}: watermark per node {}, query's {}",
                    spec.name(),
                    batch.batchId,
                    nodes.byNode(),
                    Watermarks.format(summary.watermarkAfter));
        }
        summary.startOffset = new LinkedHashMap<>(planner.describeOffsets());
        batch.readDone = summary;
        statsByReader.clear();
        watermarkEmitted.clear();
        tellReaders(new SourceEvents.AdvanceWatermark(batch.batchId, summary.watermarkAfter));
    }

    private void onWatermarkEmitted(int subtaskId, long batchId) {
        EnumeratorState.InFlight<S> batch = state.inFlight;
        if ((batch == null || batch.readDone == null)
                && batchId == state.lastSealed()
                && start.emitted(
                        subtaskId,
                        context.currentParallelism(),
                        context.registeredReaders().size())) {
            onStarted();
            return;
        }
        if (batch == null || batch.readDone == null || batch.batchId != batchId) {
            return;
        }
        watermarkEmitted.add(subtaskId);
        if (watermarkEmitted.size() < context.currentParallelism()) {
            return;
        }
        // Sealed: every record of the batch and its watermark are emitted by every reader.
        try {
            planner.commit(batch.splits);
            state.plannerCommitted = planner.committed();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    String.format(
                            "source '%s': cannot commit batch %d: %s",
                            spec.name(), batchId, e.getMessage()),
                    e);
        }
        BatchSummary summary = batch.readDone;
        summary.endOffset = new LinkedHashMap<>(planner.describeOffsets());
        state.watermark = Math.max(state.watermark, summary.watermarkAfter);
        state.inFlight = null;
        sealedNotSnapshotted.add(summary);
        if (spec.trigger().isRealTime()) {
            // Real-time: the next step starts now; the checkpoint commits whatever is sealed.
            log(
                    "Source '{}' sealed step {}: {} rows, watermark {}",
                    spec.name(),
                    batchId,
                    summary.numInputRows,
                    Watermarks.format(state.watermark));
            maybeStartBatch();
            return;
        }
        waitingForCheckpoint = true;
        waitingForCheckpointAfter = -1;
        LOG.info(
                "Source '{}' sealed batch {}: {} rows, watermark {}{}",
                spec.name(),
                batchId,
                summary.numInputRows,
                Watermarks.format(state.watermark),
                summary.skippedFiles.isEmpty() ? "" : ", skipped (gone) " + summary.skippedFiles);
        if (spec.trigger().isAvailableNow()) {
            if (planner.nextBatchIsEmpty()) {
                signals.caughtUp();
            } else {
                // Spark runs an availableNow run's batches back to back: the next one starts
                // after a checkpoint holding this one, which the client asks for now instead of
                // waiting for the periodic one.
                signals.checkpointWanted(batchId);
            }
        }
    }

    /**
     * Every reader has emitted the starting watermark: the first batch (or a batch restored in the
     * middle of its reading) waits, as every later one does, for a checkpoint taken after that
     * ({@link ReaderStart} says why). A failover before that checkpoint needs nothing more: it
     * restores an enumerator that holds the batch again, and re-registered readers emit the
     * watermark again; a restore from it keeps no operator's watermark, which is why readers are
     * sent it again before anything is read.
     */
    private void onStarted() {
        long sealed = state.lastSealed();
        LOG.info(
                "Source '{}': every reader has emitted the starting watermark {}; batch {} {}"
                        + " after the next checkpoint",
                spec.name(),
                Watermarks.format(nodes.starting(state.watermark)),
                sealed + 1,
                restoredReading ? "is read on" : "starts");
        waitingForCheckpoint = true;
        waitingForCheckpointAfter = -1;
        if (spec.trigger().isAvailableNow() || spec.trigger().isRealTime()) {
            // Real-time too: its first records would otherwise wait for the periodic checkpoint.
            signals.checkpointWanted(sealed);
        }
    }

    private void maybeStartBatch() {
        if (!start.over() && start.done() && !waitingForCheckpoint) {
            start.end();
            if (restoredReading) {
                releaseRestoredBatch();
            }
        }
        if (state.inFlight != null) {
            if (state.inFlight.readDone != null) {
                // Restored after the watermark was fixed: every reader emits it again.
                tellReaders(
                        new SourceEvents.AdvanceWatermark(
                                state.inFlight.batchId, state.inFlight.readDone.watermarkAfter));
            }
            return;
        }
        if (waitingForCheckpoint || !targetFixed) {
            return;
        }
        if (!start.done()) {
            // A run with nothing to read ends without waiting for the readers' start.
            if (spec.trigger().isAvailableNow()
                    && plans.nothingToPlan(state.nextBatchId, planner)) {
                signals.caughtUp();
            }
            return;
        }
        if (nothingNewInRealTime()) {
            return;
        }
        fence.checkOwner();
        List<S> splits = plans.replayOrPlan(state.nextBatchId, planner, spec);
        if (splits.isEmpty()) {
            if (spec.trigger().isAvailableNow()) {
                signals.caughtUp();
            }
            return;
        }
        EnumeratorState.InFlight<S> batch = new EnumeratorState.InFlight<>();
        batch.batchId = state.nextBatchId++;
        batch.splits = new ArrayList<>(splits);
        batch.unassigned = new ArrayList<>(splits);
        batch.startedAtMillis = System.currentTimeMillis();
        state.inFlight = batch;
        statsByReader.clear();
        log(
                "Source '{}' starts batch {} with {} splits",
                spec.name(),
                batch.batchId,
                splits.size());
        assignToIdleReaders(batch);
    }

    /**
     * Whether a real-time run's look ({@link SplitPlanner#realTimeLook}) found nothing to read.
     * Such a look reads no file: neither the fence nor the offset log, which were two requests a
     * look on an object store while the query waited for data. The fence is still read before every
     * step that reads something and at every checkpoint ({@link #snapshotState}: a fenced job
     * completes none, so its sinks commit nothing more), and every second ({@link
     * RunFence#reasonToStop}). The offset log is read once for each batch id: a plan recorded
     * before a restart is read again whatever the planner sees now, and real-time steps record
     * none, so no later id has one.
     */
    private boolean nothingNewInRealTime() {
        if (!spec.trigger().isRealTime() || !planner.nextBatchIsEmpty()) {
            return false;
        }
        if (unrecordedBatchId != state.nextBatchId) {
            if (!plans.nothingToPlan(state.nextBatchId, planner)) {
                return false;
            }
            unrecordedBatchId = state.nextBatchId;
        }
        return true;
    }

    /**
     * A batch restored in the middle of its reading: every reader has emitted the restored
     * watermark and a checkpoint taken after that completed ({@link ReaderStart} says why both), so
     * the readers read on the splits they hold, and the idle ones get the rest.
     */
    private void releaseRestoredBatch() {
        LOG.info(
                "Source '{}': the restored watermark {} is in a checkpoint; the readers read on"
                        + " batch {}",
                spec.name(),
                Watermarks.format(nodes.starting(state.watermark)),
                state.inFlight.batchId);
        tellReaders(new SourceEvents.ReleaseSplits());
        assignToIdleReaders(state.inFlight);
        maybeFinishReading();
    }

    /** Info for a micro-batch; debug for a real-time step, of which there are hundreds a second. */
    private void log(String format, Object... args) {
        if (spec.trigger().isRealTime()) {
            LOG.debug(format, args);
        } else {
            LOG.info(format, args);
        }
    }

    private void tellReaders(SourceEvent event) {
        for (int reader : context.registeredReaders().keySet()) {
            context.sendEventToSourceReader(reader, event);
        }
    }

    /** Each idle reader gets the next split of {@code batch} it may read, if any is left. */
    private void assignToIdleReaders(EnumeratorState.InFlight<S> batch) {
        for (int reader : new TreeSet<>(idle)) {
            S next = assigner.take(batch, reader, context.currentParallelism());
            if (next != null) {
                context.assignSplit(MicroBatchSplit.of(next), reader);
                idle.remove(reader);
            }
        }
    }

    @Override
    public EnumeratorState<S> snapshotState(long checkpointId) {
        // A fenced job completes no checkpoint, so its sinks commit nothing more.
        fence.checkOwner();
        if (!sealedNotSnapshotted.isEmpty()) {
            sealedByCheckpoint.put(checkpointId, new ArrayList<>(sealedNotSnapshotted));
            sealedNotSnapshotted.clear();
        }
        if (waitingForCheckpoint && waitingForCheckpointAfter < 0) {
            waitingForCheckpointAfter = checkpointId;
        }
        // Sealed batches of checkpoints that did not complete are reported again with this one.
        // Before this checkpoint's barriers leave the readers: table committers read it in their
        // snapshot of the same checkpoint to know which batch their staged files close.
        List<BatchSummary> carried = new ArrayList<>();
        sealedByCheckpoint.values().forEach(carried::addAll);
        if (spec.trigger().isRealTime() && carried.size() > 1) {
            // A real-time batch is every step a checkpoint commits: one progress entry.
            carried = List.of(BatchSummary.merged(carried));
        }
        signals.atCheckpoint(checkpointId, carried, state.lastSealed());
        return state.copy();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        sealedByCheckpoint.headMap(checkpointId, true).clear();
        signals.completed(checkpointId);
        if (waitingForCheckpoint
                && waitingForCheckpointAfter >= 0
                && checkpointId >= waitingForCheckpointAfter) {
            waitingForCheckpoint = false;
            maybeStartBatch();
        }
    }

    @Override
    public void close() {
        planner.close();
    }
}
