package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.runtime.query.RunOptions;

/**
 * Spark's {@code maxFilesPerTrigger} and {@code maxBytesPerTrigger}: a backlog split into batches,
 * each committed on its own. Left out, there is no limit; 0 and negative values are refused.
 */
public final class RateLimitOptions {

    @Option(
            names = "--max-files-per-trigger",
            paramLabel = "N",
            converter = Converters.IntLimit.class,
            description =
                    "split a backlog into batches of at most N files, each committed on its own"
                            + " (default: no limit)")
    Integer maxFiles;

    @Option(
            names = "--max-bytes-per-trigger",
            paramLabel = "SIZE",
            converter = Converters.Size.class,
            description =
                    "file sources: batches of at most SIZE bytes of files (e.g. 64m, 1g), one file"
                            + " at least (default: no limit)")
    Long maxBytes;

    /** Sets the limits given; a left-out option means no limit (Spark refuses 0). */
    public RunOptions.Builder applyTo(RunOptions.Builder run) {
        if (maxFiles != null) {
            run.maxFilesPerTrigger(maxFiles);
        }
        if (maxBytes != null) {
            run.maxBytesPerTrigger(maxBytes);
        }
        return run;
    }
}
