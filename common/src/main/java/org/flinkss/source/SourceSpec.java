package org.flinkss.source;

import org.flinkss.query.Trigger;

import java.io.Serializable;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * How one source of one run of a query behaves: its name in the query, the query's checkpoint
 * directory, the run, the trigger, the rate limit, and the watermark delay of the query's
 * {@code withWatermark} (or none).
 */
public final class SourceSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final long NO_WATERMARK = -1;

    final String name;
    final String checkpointDir;
    final String runId;
    final Trigger trigger;
    final int maxUnitsPerTrigger;
    final long watermarkDelayMillis;

    public SourceSpec(String name, Path checkpointDir, String runId, Trigger trigger, int maxUnitsPerTrigger, long watermarkDelayMillis) {
        this.name = name;
        this.checkpointDir = checkpointDir.toAbsolutePath().toString();
        this.runId = runId;
        this.trigger = trigger;
        this.maxUnitsPerTrigger = maxUnitsPerTrigger <= 0 ? Integer.MAX_VALUE : maxUnitsPerTrigger;
        this.watermarkDelayMillis = watermarkDelayMillis;
    }

    public String name() {
        return name;
    }

    public Path checkpointDir() {
        return Paths.get(checkpointDir);
    }

    public String runId() {
        return runId;
    }

    public Trigger trigger() {
        return trigger;
    }

    public int maxUnitsPerTrigger() {
        return maxUnitsPerTrigger;
    }

    public boolean hasWatermark() {
        return watermarkDelayMillis != NO_WATERMARK;
    }

    public long watermarkDelayMillis() {
        return watermarkDelayMillis;
    }
}
