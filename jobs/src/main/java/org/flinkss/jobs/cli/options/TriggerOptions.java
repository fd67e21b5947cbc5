package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.trigger.Trigger;

import java.time.Duration;

/** When a run processes data and when it stops: {@code --trigger} and {@code --run-for}. */
public final class TriggerOptions {

    @Option(
            names = "--trigger",
            defaultValue = "available-now",
            paramLabel = "TRIGGER",
            converter = Converters.TriggerValue.class,
            description =
                    "available-now, processing-time=<interval>, continuous, or once (deprecated)"
                            + " (default: ${DEFAULT-VALUE})")
    Trigger trigger;

    @Option(
            names = "--run-for",
            paramLabel = "DURATION",
            converter = Converters.PositiveDuration.class,
            description =
                    "processing-time and continuous triggers: stop with a savepoint after this long"
                            + " (default: until Ctrl-C)")
    Duration runFor;

    public RunOptions.Builder applyTo(RunOptions.Builder run) {
        if (runFor != null && trigger.isAvailableNow()) {
            throw new IllegalArgumentException(
                    "--run-for goes with --trigger processing-time=<interval> or continuous: an"
                            + " available-now run stops by itself once it has processed what is"
                            + " there");
        }
        run.trigger(trigger);
        return runFor != null ? run.runFor(runFor) : run;
    }
}
