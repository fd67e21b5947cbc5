package org.flinkss.runtime.source;

import org.flinkss.runtime.checkpoint.RunScope;
import org.flinkss.runtime.trigger.Trigger;

import java.io.Serializable;

/**
 * How one source of one run of a query behaves: its name in the query, the run (and so the query's
 * checkpoint directory), the trigger, the rate limit, the watermark delay of the query's {@code
 * withWatermark} (or none), and whether files that are gone when read are skipped.
 */
public final class SourceSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final long NO_WATERMARK = -1;

    final String name;
    final RunScope scope;
    final Trigger trigger;
    final int maxUnitsPerTrigger;
    final long watermarkDelayMillis;
    final boolean skipMissingFiles;

    public SourceSpec(
            String name,
            RunScope scope,
            Trigger trigger,
            int maxUnitsPerTrigger,
            long watermarkDelayMillis) {
        this(name, scope, trigger, maxUnitsPerTrigger, watermarkDelayMillis, false);
    }

    /**
     * @param skipMissingFiles a planned file that is gone when a reader opens it is skipped and
     *     recorded ({@code --skip-missing-files}) instead of failing the run
     */
    public SourceSpec(
            String name,
            RunScope scope,
            Trigger trigger,
            int maxUnitsPerTrigger,
            long watermarkDelayMillis,
            boolean skipMissingFiles) {
        this.name = name;
        this.scope = scope;
        this.trigger = trigger;
        this.maxUnitsPerTrigger = maxUnitsPerTrigger <= 0 ? Integer.MAX_VALUE : maxUnitsPerTrigger;
        this.watermarkDelayMillis = watermarkDelayMillis;
        this.skipMissingFiles = skipMissingFiles;
    }

    public String name() {
        return name;
    }

    /** The run this source reads for: where it keeps its offset log and reports progress. */
    public RunScope scope() {
        return scope;
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

    public boolean skipMissingFiles() {
        return skipMissingFiles;
    }
}
