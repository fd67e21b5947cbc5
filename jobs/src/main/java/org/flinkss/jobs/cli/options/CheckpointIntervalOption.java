package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.runtime.query.RunOptions;

import java.time.Duration;

/** {@code --checkpoint-interval DURATION}: how often a run checkpoints. */
public final class CheckpointIntervalOption {

    @Option(
            names = "--checkpoint-interval",
            paramLabel = "DURATION",
            converter = Converters.PositiveDuration.class,
            description =
                    "checkpoint cadence within a run (default: the trigger's interval; 30s for"
                            + " available-now, whose batches end with a checkpoint of their own)")
    Duration interval;

    public RunOptions.Builder applyTo(RunOptions.Builder run) {
        return interval != null ? run.checkpointInterval(interval) : run;
    }
}
