package org.flinkss.source.internal;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

import org.flinkss.source.RecordFormat;
import org.flinkss.source.SplitRecordReader;
import org.flinkss.source.WorkSplit;
import org.flinkss.time.Watermarks;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads the splits the enumerator assigns, one at a time, and emits each batch's watermark when
 * told to, after all of its records. Records carry their event time as their timestamp; the
 * source itself generates no watermark: per-split and periodic watermarks are what make Flink's
 * file source drop whole files or never move (see SEMANTICS.md).
 */
public final class MicroBatchReader<T, S extends WorkSplit> implements SourceReader<T, MicroBatchSplit<S>> {

    /** Records per {@link #pollNext} call: long enough to be cheap, short enough for checkpoints. */
    private static final int RECORDS_PER_POLL = 2048;

    private final SourceReaderContext context;
    private final RecordFormat<T, S> format;
    private final String sourceName;

    private final ArrayDeque<S> queue = new ArrayDeque<>();
    private S current;
    private SplitRecordReader<T> currentReader;

    private BatchStats stats = BatchStats.empty();
    private boolean reportedIdle;
    private long pendingWatermarkBatch = -1;
    private long pendingWatermark = Long.MIN_VALUE;
    private boolean hasPendingWatermark;
    private CompletableFuture<Void> available = new CompletableFuture<>();

    public MicroBatchReader(SourceReaderContext context, RecordFormat<T, S> format, String sourceName) {
        this.context = context;
        this.format = format;
        this.sourceName = sourceName;
    }

    @Override
    public void start() {}

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
            context.sendSourceEventToCoordinator(new SourceEvents.WatermarkEmitted(pendingWatermarkBatch));
            return InputStatus.MORE_AVAILABLE;
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
                output.collect(record, eventTime);
            }
        }
        return InputStatus.MORE_AVAILABLE;
    }

    private SplitRecordReader<T> open(S split) throws IOException {
        try {
            return format.open(split);
        } catch (FileNotFoundException | NoSuchFileException e) {
            throw new IOException("source '" + sourceName + "': " + split.describe() + " was planned in batch " + split.batchId()
                    + " but is gone before it was read. Put it back and run the query again.", e);
        }
    }

    @Override
    public List<MicroBatchSplit<S>> snapshotState(long checkpointId) {
        List<MicroBatchSplit<S>> splits = new ArrayList<>();
        if (current != null) {
            splits.add(MicroBatchSplit.of(castSplit(current.withPosition(currentReader.position()))));
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
        }
    }

    @Override
    public void notifyNoMoreSplits() {}

    @Override
    public void close() throws Exception {
        if (currentReader != null) {
            currentReader.close();
        }
    }
}
