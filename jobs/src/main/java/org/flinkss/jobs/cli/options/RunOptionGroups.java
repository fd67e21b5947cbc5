package org.flinkss.jobs.cli.options;

import org.flinkss.jobs.cli.output.Stdout;
import org.flinkss.runtime.query.RunOptions;

/**
 * The one place where the option groups of the commands that run a query ({@code run}, {@code sql})
 * become the run's {@link RunOptions}. Each group is a parameter: a group added later is one more
 * here, so the compiler makes every such command declare and pass it, and an option cannot reach
 * one command and not the other. What belongs to one command only (the catalog's output mode and
 * Kafka options, {@code --skip-missing-files}) it sets on the builder this returns.
 */
public final class RunOptionGroups {

    private RunOptionGroups() {}

    /**
     * A builder with the groups applied: progress on stdout and the run's notes on stderr (UTF-8),
     * the {@code -D} options, the base and warehouse, the trigger, the rate limits, the checkpoint
     * interval, the parallelism, the expectations and the watermark policy.
     */
    public static RunOptions.Builder assemble(
            DataOptions data,
            TriggerOptions trigger,
            RateLimitOptions limits,
            ParallelismOption parallelism,
            CheckpointIntervalOption checkpointInterval,
            ProgressOptions progress,
            FlinkOptions flink,
            ExpectOption expect,
            WatermarkPolicyOption watermarkPolicy) {
        RunOptions.Builder options = RunOptions.builder().parallelism(parallelism.value());
        progress.applyTo(options, Stdout.utf8(), Stdout.utf8ErrStream());
        flink.applyTo(options);
        data.applyTo(options);
        trigger.applyTo(options);
        limits.applyTo(options);
        checkpointInterval.applyTo(options);
        expect.applyTo(options);
        watermarkPolicy.applyTo(options);
        return options;
    }
}
