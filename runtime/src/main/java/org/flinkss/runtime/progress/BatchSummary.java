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
}
