package org.flinkss.runtime.source.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.WatermarkNode;
import org.flinkss.runtime.source.WorkSplit;
import org.flinkss.runtime.time.Watermarks;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads the splits the enumerator assigns, one at a time, and emits each batch's watermark when
 * told to, after all of its records. Records carry their event time as their timestamp; the source
 * itself generates no watermark: per-split and periodic watermarks are what make Flink's file
 * source drop whole files or never move (see docs/semantics.md).
 *
 * <p>A planned file that is gone when the reader opens it fails the task, naming the file, the
 * batch and the two ways out; with {@code --skip-missing-files} it is skipped instead, and never
 * silently: the skip goes into the reader's totals (the batch's progress) and, when the format has
 * a record for it, into the stream (the query's {@code <table>_skipped_files}). Both are part of
 * the checkpointed state or the checkpointed output, so a skip is recorded once across restores.
 */
@Internal
public final class MicroBatchReader<T, S extends WorkSplit>
        implements SourceReader<T, MicroBatchSplit<S>> {

    /**
     * Records per {@link #pollNext} call: long enough to be cheap, short enough for checkpoints.
     */
    private static final int RECORDS_PER_POLL = 2048;

    private static final Logger LOG = LoggerFactory.getLogger(MicroBatchReader.class);

    private final SourceReaderContext context;
    private final RecordFormat<T, S> format;
    private final String sourceName;
    private final boolean skipMissingFiles;
    private final List<WatermarkNode<T>> nodes;

    private final ArrayDeque<S> queue = new ArrayDeque<>();
    private S current;
    private SplitRecordReader<T> currentReader;

    private BatchStats stats = BatchStats.empty();
    private boolean reportedIdle;
    private long pendingWatermarkBatch = -1;
    private long pendingWatermark = Long.MIN_VALUE;
    private boolean hasPendingWatermark;

    /**
     * Restored with splits of a batch still being read: they wait for the enumerator's {@link
     * SourceEvents.ReleaseSplits}, sent once the restored watermark has reached every operator.
     */
    private boolean held;

    private boolean started;
    private CompletableFuture<Void> available = new CompletableFuture<>();

    /**
     * @param nodes the query's watermark nodes on this source: the reader keeps, per node, the
     *     newest event time of the rows that reach it
     */
    public MicroBatchReader(
            SourceReaderContext context,
            RecordFormat<T, S> format,
            String sourceName,
            boolean skipMissingFiles,
            List<WatermarkNode<T>> nodes) {
        this.nodes = List.copyOf(nodes);
        this.context = context;
        this.format = format;
        this.sourceName = sourceName;
        this.skipMissingFiles = skipMissingFiles;
    }

    @Override
    public void start() {
        started = true;
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        if (hasPendingWatermark) {
            hasPendingWatermark = false;
            if (pendingWatermark != Long.MIN_VALUE) {
                output.emitWatermark(new Watermark(Watermarks.toFlink(pendingWatermark)));
            }
            if (stats.batchId <= pendingWatermarkBatch) {
                stats = BatchStats.empty();
            }
            context.sendSourceEventToCoordinator(
                    new SourceEvents.WatermarkEmitted(pendingWatermarkBatch));
            return InputStatus.MORE_AVAILABLE;
        }
        if (held) {
            if (available.isDone()) {
                available = new CompletableFuture<>();
            }
            return InputStatus.NOTHING_AVAILABLE;
        }
        if (current == null) {
            current = queue.poll();
            if (current == null) {
                if (!reportedIdle) {
                    reportedIdle = true;
                    context.sendSourceEventToCoordinator(new SourceEvents.ReaderIdle(stats.copy()));
                }
                if (available.isDone()) {
                    available = new CompletableFuture<>();
                }
                return InputStatus.NOTHING_AVAILABLE;
            }
            currentReader = open(current);
            if (currentReader == null) {
                skip(current, output);
                current = null;
                return InputStatus.MORE_AVAILABLE;
            }
        }
        long batch = current.batchId();
        for (int i = 0; i < RECORDS_PER_POLL; i++) {
            T record = currentReader.next();
            if (record == null) {
                currentReader.close();
                currentReader = null;
                current = null;
                return InputStatus.MORE_AVAILABLE;
            }
            long eventTime = format.eventTime(record);
            stats.add(batch, eventTime, format.isBad(record));
            if (eventTime == Long.MIN_VALUE) {
                output.collect(record);
            } else {
                for (int n = 0; n < nodes.size(); n++) {
                    if (nodes.get(n).reaches(record)) {
                        stats.reach(n, eventTime);
                    }
                }
                output.collect(record, eventTime);
            }
        }
        return InputStatus.MORE_AVAILABLE;
    }

    /** The split's reader, or null if its data is gone and the run skips missing files. */
    private SplitRecordReader<T> open(S split) throws IOException {
        try {
            return format.open(split);
        } catch (FileNotFoundException | NoSuchFileException e) {
            if (skipMissingFiles) {
                return null;
            }
            throw new IOException(goneMessage(sourceName, split, format.skipsMissingFiles()), e);
        } catch (AccessDeniedException e) {
            throw new PermanentFailure(deniedMessage(sourceName, split), e);
        }
    }

    /** Why a run fails at once on a file it may not read: no restart gives it the right. */
    static String deniedMessage(String sourceName, WorkSplit split) {
        return "source '"
                + sourceName
                + "': "
                + split.describe()
                + " cannot be read: permission denied, which no restart can fix. Let the user"
                + " that runs the job read it (for example chmod a+r), or move it out of the"
                + " source folder, and run the query again (batch "
                + split.batchId()
                + " is read again from the last checkpoint).";
    }

    /**
     * Why a run fails on a planned file that is gone, and the ways out: {@code
     * --skip-missing-files} only where the query accepts it ({@link
     * RecordFormat#skipsMissingFiles}).
     */
    static String goneMessage(String sourceName, WorkSplit split, boolean skippable) {
        return "source '"
                + sourceName
                + "': "
                + split.describe()
                + " was planned in batch "
                + split.batchId()
                + " but is gone"
                + (split.position() > 0
                        ? " (after " + split.position() + " of its records were read)"
                        : " before it was read")
                + (skippable
                        ? ". Either put it back and run the query again (batch "
                                + split.batchId()
                                + " is read again from the last checkpoint), or run it again with"
                                + " --skip-missing-files, which skips the files that are gone and"
                                + " records each one (in the batch's progress and in the query's"
                                + " *_skipped_files table)."
                        : ". Put it back and run the query again (batch "
                                + split.batchId()
                                + " is read again from the last checkpoint); if it is gone for"
                                + " good, 'reset' the query that wrote it and then this one, to"
                                + " rebuild their tables from what is left.");
    }

    /** Why a split was skipped, as its record says. */
    static String skipReason(WorkSplit split) {
        return "gone "
                + (split.position() > 0
                        ? "after "
                                + split.position()
                                + " of its records were read; the rest was skipped"
                        : "before it was read")
                + " (--skip-missing-files)";
    }

    private void skip(S split, ReaderOutput<T> output) {
        String reason = skipReason(split);
        LOG.warn(
                "Source '{}' skipped {} planned in batch {}: {}",
                sourceName,
                split.describe(),
                split.batchId(),
                reason);
        stats.skip(split.batchId(), split.location());
        T record = format.skipped(split, reason);
        if (record != null) {
            output.collect(record);
        }
    }

    @Override
    public List<MicroBatchSplit<S>> snapshotState(long checkpointId) {
        List<MicroBatchSplit<S>> splits = new ArrayList<>();
        if (current != null) {
            splits.add(
                    MicroBatchSplit.of(castSplit(current.withPosition(currentReader.position()))));
        }
        for (S s : queue) {
            splits.add(MicroBatchSplit.of(s));
        }
        if (!stats.isEmpty()) {
            splits.add(MicroBatchSplit.ofStats(stats.copy()));
        }
        return splits;
    }

    @SuppressWarnings("unchecked")
    private S castSplit(WorkSplit split) {
        return (S) split;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return available;
    }

    @Override
    public void addSplits(List<MicroBatchSplit<S>> splits) {
        for (MicroBatchSplit<S> split : splits) {
            if (split.work != null) {
                queue.add(split.work);
                reportedIdle = false;
                // Flink hands a reader the splits of its state before it starts.
                held |= !started;
            } else {
                // Totals restored from a checkpoint taken before the batch's watermark was emitted.
                stats.merge(split.stats);
            }
        }
        if (!queue.isEmpty() || !reportedIdle) {
            available.complete(null);
        }
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof SourceEvents.AdvanceWatermark) {
            SourceEvents.AdvanceWatermark advance = (SourceEvents.AdvanceWatermark) event;
            if (!hasPendingWatermark || advance.watermark >= pendingWatermark) {
                pendingWatermark = advance.watermark;
                pendingWatermarkBatch = Math.max(pendingWatermarkBatch, advance.batchId);
            }
            hasPendingWatermark = true;
            available.complete(null);
        } else if (event instanceof SourceEvents.ReleaseSplits && held) {
            LOG.info(
                    "Source '{}': the reader reads on the splits restored from its state",
                    sourceName);
            held = false;
            available.complete(null);
        }
    }

    @Override
    public void notifyNoMoreSplits() {}

    @Override
    public void close() throws Exception {
        if (currentReader != null) {
            currentReader.close();
        }
        format.close();
    }
}
