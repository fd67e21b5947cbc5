package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import javax.annotation.Nullable;

/** {@code --parallelism N}. */
public final class ParallelismOption {

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            converter = Converters.PositiveInt.class,
            description =
                    "parallelism of the job (default: flink-conf for run, 2 for demo and bench)")
    Integer parallelism;

    /** As given, or null for the configuration's. */
    @Nullable
    public Integer value() {
        return parallelism;
    }

    public int orElse(int fallback) {
        return parallelism != null ? parallelism : fallback;
    }
}
