package org.flinkss.runtime.source.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import org.flinkss.runtime.progress.BatchSummary;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What one reader read of one batch: counts, event-time extremes, and the files it skipped because
 * they were gone. Readers send their running totals (never deltas), so a report that arrives twice,
 * or again after a restore, is harmless.
 */
@Internal
public final class BatchStats implements Serializable {

    private static final long serialVersionUID = 1L;

    public long batchId = -1;
    public long rows;
    public long badRows;
    public long minEventTime = Long.MAX_VALUE;
    public long maxEventTime = Long.MIN_VALUE;
    public double sumEventTime;
    public long eventTimeCount;

    /** Where the splits are that this reader skipped because their data was gone. */
    public List<String> skipped = new ArrayList<>();

    /**
     * Per watermark node of the source (in the order the source declares them), the newest event
     * time of the rows that reached it, {@link Long#MIN_VALUE} while none has.
     */
    public long[] nodeMaxEventTime = new long[0];

    public static BatchStats empty() {
        return new BatchStats();
    }

    public boolean isEmpty() {
        return rows == 0 && badRows == 0 && skipped.isEmpty();
    }

    /** A split of {@code batch} was skipped: its data at {@code location} was gone. */
    public void skip(long batch, String location) {
        batchId = batch;
        skipped.add(location);
    }

    public void add(long batch, long eventTime, boolean bad) {
        batchId = batch;
        rows++;
        if (bad) {
            badRows++;
        }
        if (eventTime != Long.MIN_VALUE) {
            minEventTime = Math.min(minEventTime, eventTime);
            maxEventTime = Math.max(maxEventTime, eventTime);
            sumEventTime += eventTime;
            eventTimeCount++;
        }
    }

    /** A row with event time {@code eventTime} reached watermark node {@code node}. */
    public void reach(int node, long eventTime) {
        growNodes(node + 1);
        nodeMaxEventTime[node] = Math.max(nodeMaxEventTime[node], eventTime);
    }

    /** The newest event time that reached node {@code node}, or {@link Long#MIN_VALUE}. */
    public long nodeMaxEventTime(int node) {
        return node < nodeMaxEventTime.length ? nodeMaxEventTime[node] : Long.MIN_VALUE;
    }

    private void growNodes(int n) {
        if (nodeMaxEventTime.length < n) {
            int old = nodeMaxEventTime.length;
            nodeMaxEventTime = Arrays.copyOf(nodeMaxEventTime, n);
            Arrays.fill(nodeMaxEventTime, old, n, Long.MIN_VALUE);
        }
    }

    public void merge(BatchStats other) {
        if (other.batchId > batchId) {
            batchId = other.batchId;
        }
        rows += other.rows;
        badRows += other.badRows;
        minEventTime = Math.min(minEventTime, other.minEventTime);
        maxEventTime = Math.max(maxEventTime, other.maxEventTime);
        sumEventTime += other.sumEventTime;
        eventTimeCount += other.eventTimeCount;
        skipped.addAll(other.skipped);
        growNodes(other.nodeMaxEventTime.length);
        for (int i = 0; i < other.nodeMaxEventTime.length; i++) {
            nodeMaxEventTime[i] = Math.max(nodeMaxEventTime[i], other.nodeMaxEventTime[i]);
        }
    }

    /**
     * What these totals of a whole batch say in its progress: rows, bad rows, event times and the
     * files skipped; the enumerator adds the watermark and the offsets.
     */
    BatchSummary summary(long batchId, int splits, long startedAtMillis) {
        BatchSummary summary = new BatchSummary();
        summary.batchId = batchId;
        summary.numInputRows = rows;
        summary.numBadRows = badRows;
        summary.numSplits = splits;
        summary.startedAtMillis = startedAtMillis;
        summary.readAtMillis = System.currentTimeMillis();
        summary.minEventTime = minEventTime;
        summary.maxEventTime = maxEventTime;
        summary.avgEventTime = eventTimeCount == 0 ? Double.NaN : sumEventTime / eventTimeCount;
        summary.skippedFiles = skipped.stream().sorted().collect(Collectors.toList());
        return summary;
    }

    public BatchStats copy() {
        BatchStats c = new BatchStats();
        c.merge(this);
        c.batchId = batchId;
        return c;
    }

    /** Writes the latest version ({@link MicroBatchSplit.Serializer}'s). */
    void write(DataOutputView out) throws IOException {
        out.writeLong(batchId);
        out.writeLong(rows);
        out.writeLong(badRows);
        out.writeLong(minEventTime);
        out.writeLong(maxEventTime);
        out.writeDouble(sumEventTime);
        out.writeLong(eventTimeCount);
        out.writeInt(skipped.size());
        for (String location : skipped) {
            out.writeUTF(location);
        }
        out.writeInt(nodeMaxEventTime.length);
        for (long max : nodeMaxEventTime) {
            out.writeLong(max);
        }
    }

    /**
     * Reads what {@link #write} wrote; version 1 (before skipped files) has no list, version 2
     * (before watermark nodes) no per-node times.
     */
    static BatchStats read(DataInputView in, int version) throws IOException {
        BatchStats s = new BatchStats();
        s.batchId = in.readLong();
        s.rows = in.readLong();
        s.badRows = in.readLong();
        s.minEventTime = in.readLong();
        s.maxEventTime = in.readLong();
        s.sumEventTime = in.readDouble();
        s.eventTimeCount = in.readLong();
        if (version >= 2) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                s.skipped.add(in.readUTF());
            }
        }
        if (version >= 3) {
            int n = in.readInt();
            s.nodeMaxEventTime = new long[n];
            for (int i = 0; i < n; i++) {
                s.nodeMaxEventTime[i] = in.readLong();
            }
        }
        return s;
    }

    @Override
    public String toString() {
        return "BatchStats{batch="
                + batchId
                + ", rows="
                + rows
                + ", bad="
                + badRows
                + ", maxTs="
                + maxEventTime
                + (skipped.isEmpty() ? "" : ", skipped=" + skipped)
                + '}';
    }
}
