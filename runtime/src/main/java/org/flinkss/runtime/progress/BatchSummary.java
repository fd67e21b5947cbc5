package org.flinkss.runtime.progress;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One sealed batch of one source, as the enumerator saw it: what goes into progress. */
public final class BatchSummary implements Serializable {

    private static final long serialVersionUID = 1L;

    public long batchId;
    public long numInputRows;
    public long numBadRows;
    public int numSplits;
    public long startedAtMillis;
    public long readAtMillis;
    public long minEventTime = Long.MAX_VALUE;
    public long maxEventTime = Long.MIN_VALUE;
    public double avgEventTime = Double.NaN;

    /** Spark's watermark in force during the batch, and the one it ended with. */
    public long watermarkBefore = Long.MIN_VALUE;

    public long watermarkAfter = Long.MIN_VALUE;
    public Map<String, Object> startOffset = new LinkedHashMap<>();
    public Map<String, Object> endOffset = new LinkedHashMap<>();

    /** Files of the batch that were gone when read, skipped with {@code --skip-missing-files}. */
    public List<String> skippedFiles = new ArrayList<>();

    /**
     * Consecutive batches as one: a real-time run's steps committed by one checkpoint. Counts add
     * up, the first step's start and watermark before, the last one's id, end and watermark after.
     */
    public static BatchSummary merged(List<BatchSummary> steps) {
        BatchSummary first = steps.get(0);
        BatchSummary last = steps.get(steps.size() - 1);
        BatchSummary m = new BatchSummary();
        m.batchId = last.batchId;
        m.startedAtMillis = first.startedAtMillis;
        m.readAtMillis = last.readAtMillis;
        m.watermarkBefore = first.watermarkBefore;
        m.watermarkAfter = last.watermarkAfter;
        m.startOffset = new LinkedHashMap<>(first.startOffset);
        m.endOffset = new LinkedHashMap<>(last.endOffset);
        double weighted = 0;
        long timed = 0;
        for (BatchSummary s : steps) {
            m.numInputRows += s.numInputRows;
            m.numBadRows += s.numBadRows;
            m.numSplits += s.numSplits;
            m.minEventTime = Math.min(m.minEventTime, s.minEventTime);
            m.maxEventTime = Math.max(m.maxEventTime, s.maxEventTime);
            if (!Double.isNaN(s.avgEventTime)) {
                weighted += s.avgEventTime * s.numInputRows;
                timed += s.numInputRows;
            }
            m.skippedFiles.addAll(s.skippedFiles);
        }
        m.avgEventTime = timed > 0 ? weighted / timed : Double.NaN;
        return m;
    }
}
