package org.flinkss.runtime.source;

import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.time.WatermarkPolicy;
import org.flinkss.runtime.trigger.Trigger;

import java.io.Serializable;

/**
 * How one source of one run of a query behaves: its name in the query, the run (and so the query's
 * checkpoint directory), the trigger, the rate limits ({@link ReadLimit}), and whether files that
 * are gone when read are skipped. Its watermark is the query's {@link WatermarkNode}s on it.
 */
public final class SourceSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    final String name;
    final RunScope scope;
    final Trigger trigger;
    final ReadLimit readLimit;
    final boolean skipMissingFiles;
    final ReadOrder readOrder;
    private WatermarkPolicy watermarkPolicy = WatermarkPolicy.DEFAULT;

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
            boolean skipMissingFiles) {
        this(name, scope, trigger, readLimit, skipMissingFiles, ReadOrder.ANY_READER);
    }

    /**
     * @param readLimit how much one batch may read
     * @param skipMissingFiles a planned file that is gone when a reader opens it is skipped and
     *     recorded ({@code --skip-missing-files}) instead of failing the run
     * @param readOrder which reader reads which split of a batch
     */
    public SourceSpec(
            String name,
            RunScope scope,
            Trigger trigger,
            ReadLimit readLimit,
            boolean skipMissingFiles,
            ReadOrder readOrder) {
        this.name = name;
        this.scope = scope;
        this.trigger = trigger;
        this.readLimit = readLimit;
        this.skipMissingFiles = skipMissingFiles;
        this.readOrder = readOrder;
    }

    /**
     * A source with at most {@code maxUnitsPerTrigger} files (or partitions) per batch, 0 or less
     * for no limit, and no other limit; as {@link #SourceSpec(String, RunScope, Trigger, ReadLimit,
     * boolean)} with {@code skipMissingFiles} false.
     */
    public SourceSpec(String name, RunScope scope, Trigger trigger, int maxUnitsPerTrigger) {
        this(
                name,
                scope,
                trigger,
                maxUnitsPerTrigger <= 0
                        ? ReadLimit.none()
                        : ReadLimit.none().withMaxFilesPerTrigger(maxUnitsPerTrigger),
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

    public boolean skipMissingFiles() {
        return skipMissingFiles;
    }

    /** Which reader reads which split of a batch. */
    public ReadOrder readOrder() {
        return readOrder;
    }

    /**
     * How the source's watermark is chosen from its {@link WatermarkNode}s' ({@code
     * --watermark-policy}); {@link WatermarkPolicy#DEFAULT} unless set.
     */
    public WatermarkPolicy watermarkPolicy() {
        return watermarkPolicy;
    }

    /** This spec with the watermark chosen by {@code policy} ({@link #watermarkPolicy()}). */
    public SourceSpec withWatermarkPolicy(WatermarkPolicy policy) {
        SourceSpec spec =
                new SourceSpec(name, scope, trigger, readLimit, skipMissingFiles, readOrder);
        spec.watermarkPolicy = policy;
        return spec;
    }
}
