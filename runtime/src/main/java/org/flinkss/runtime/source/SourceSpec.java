package org.flinkss.runtime.source;

import org.flinkss.runtime.checkpoint.RunScope;
import org.flinkss.runtime.trigger.Trigger;

import java.io.Serializable;

/**
 * How one source of one run of a query behaves: its name in the query, the run (and so the query's
 * checkpoint directory), the trigger, the rate limits ({@link ReadLimit}), the watermark delay of
 * the query's {@code withWatermark} (or none), and whether files that are gone when read are
 * skipped.
 */
public final class SourceSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final long NO_WATERMARK = -1;

    final String name;
    final RunScope scope;
    final Trigger trigger;
    final ReadLimit readLimit;
    final long watermarkDelayMillis;
    final boolean skipMissingFiles;

    /**
     * @param readLimit how much one batch may read
     * @param skipMissingFiles a planned file that is gone when a reader opens it is skipped and
     *     recorded ({@code --skip-missing-files}) instead of failing the run
     */
    public SourceSpec(
            String name,
            RunScope scope,
            Trigger trigger,
            ReadLimit readLimit,
            long watermarkDelayMillis,
            boolean skipMissingFiles) {
        this.name = name;
        this.scope = scope;
        this.trigger = trigger;
        this.readLimit = readLimit;
        this.watermarkDelayMillis = watermarkDelayMillis;
        this.skipMissingFiles = skipMissingFiles;
    }

    /**
     * A source with at most {@code maxUnitsPerTrigger} files (or partitions) per batch, 0 or less
     * for no limit, and no other limit; as {@link #SourceSpec(String, RunScope, Trigger, ReadLimit,
     * long, boolean)} with {@code skipMissingFiles} false.
     */
    public SourceSpec(
            String name,
            RunScope scope,
            Trigger trigger,
            int maxUnitsPerTrigger,
            long watermarkDelayMillis) {
        this(
                name,
                scope,
                trigger,
                maxUnitsPerTrigger <= 0
                        ? ReadLimit.none()
                        : ReadLimit.none().withMaxFilesPerTrigger(maxUnitsPerTrigger),
                watermarkDelayMillis,
                false);
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

    /** How much one batch of this source may read. */
    public ReadLimit readLimit() {
        return readLimit;
    }

    /** The files (or partitions) one batch may take: {@link ReadLimit#maxUnits()}. */
    public int maxUnitsPerTrigger() {
        return readLimit.maxUnits();
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
