package org.flinkss.runtime.source.impl;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.checkpoint.CheckpointLog;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.SealedBatch;
import org.flinkss.runtime.progress.BatchSummary;
import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.progress.SourcePlan;
import org.flinkss.runtime.source.ReadLimit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;

/**
 * What a micro-batch source's enumerator tells the rest of its run, through the run's files in the
 * checkpoint directory (docs/architecture.md, the run protocol): the batches it sealed, for the
 * driver's progress and for the table committers; that it wants a checkpoint now; that it has read
 * everything the run is to read.
 */
final class SourceSignals {

    private static final Logger LOG = LoggerFactory.getLogger(SourceSignals.class);

    private final RunScope scope;
    private final String source;
    private final CheckpointLog<Long, SealedBatch> sealed;
    private boolean caughtUp;

    SourceSignals(RunScope scope, String source) {
        this.scope = scope;
        this.source = source;
        this.sealed = scope.sealedBatches(source);
    }

    /**
     * At checkpoint {@code checkpointId}, before its barriers leave the readers: the batches sealed
     * and not yet in a completed checkpoint ({@code carried}, the progress fragment), and the last
     * batch sealed ({@code runs/<run>/sealed-<source>/}), which the table committers read in their
     * snapshot of the same checkpoint.
     */
    void atCheckpoint(long checkpointId, List<BatchSummary> carried, long lastSealed) {
        if (!carried.isEmpty()) {
            Fragments.write(scope, checkpointId, new Fragment.SourceBatches(source, carried));
        }
        try {
            sealed.add(checkpointId, new SealedBatch(source, checkpointId, lastSealed));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write " + sealed.location(checkpointId) + ": " + e.getMessage(), e);
        }
    }

    /** Checkpoint {@code checkpointId} completed: the records of those before it are not read. */
    void completed(long checkpointId) {
        sealed.purgeBefore(checkpointId);
    }

    /**
     * An availableNow run sealed batch {@code batchId} and has more: its client asks a checkpoint.
     */
    void checkpointWanted(long batchId) {
        JsonFiles.write(scope.checkpointWanted(source), batchId);
    }

    /**
     * What this source of an availableNow run is to read, for its client to say before the first
     * batch ({@code runs/<run>/plan-<source>.json}). Only a message: a plan that cannot be written
     * is logged, and the run goes on.
     */
    void planned(Optional<SourcePlan.Backlog> backlog, ReadLimit limit) {
        if (backlog.isEmpty()) {
            return;
        }
        try {
            JsonFiles.write(
                    scope.plan(source), SourcePlan.of(source, backlog.get(), limit.toString()));
        } catch (RuntimeException e) {
            LOG.warn("Source '{}' cannot write its plan: {}", source, e.toString());
        }
    }

    /** Everything the run is to read has been read: the client stops the job. Said once. */
    void caughtUp() {
        if (!caughtUp) {
            caughtUp = true;
            LOG.info("Source '{}' has read everything available at the start of the run", source);
            JsonFiles.touch(scope.caughtUpMarker(source));
        }
    }
}
