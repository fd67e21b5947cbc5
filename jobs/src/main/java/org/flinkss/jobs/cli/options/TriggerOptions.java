package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.trigger.Trigger;

import java.time.Duration;
import java.time.Instant;

/**
 * When a run processes data and when it stops: {@code --trigger}, {@code --run-for} and {@code
 * --until-final}.
 */
public final class TriggerOptions {

    @Option(
            names = "--trigger",
            defaultValue = "available-now",
            paramLabel = "TRIGGER",
            converter = Converters.TriggerValue.class,
            description =
                    "available-now, processing-time=<interval>, real-time[=<checkpoint"
                            + " interval>], continuous, or once (deprecated) (default:"
                            + " ${DEFAULT-VALUE})")
    Trigger trigger;

    @Option(
            names = "--run-for",
            paramLabel = "DURATION",
            converter = Converters.PositiveDuration.class,
            description =
                    "processing-time, continuous and real-time triggers: stop with a savepoint"
                            + " after this long"
                            + " (default: until Ctrl-C)")
    Duration runFor;

    @Option(
            names = "--until-final",
            paramLabel = "T",
            converter = Converters.Timestamp.class,
            description =
                    "available-now over Delta tables this project wrote: run only if each table"
                        + " read says in its newest commit that its windows ending at or before T"
                        + " are final (2025-03-01T00:30:00Z, UTC); otherwise read nothing and exit"
                        + " 1, naming the table and how far it is final")
    Instant untilFinal;

    public RunOptions.Builder applyTo(RunOptions.Builder run) {
        if (runFor != null && trigger.isAvailableNow()) {
            throw new IllegalArgumentException(
                    "--run-for goes with --trigger processing-time=<interval>, real-time or"
                            + " continuous: an"
                            + " available-now run stops by itself once it has processed what is"
                            + " there");
        }
        if (untilFinal != null && !trigger.isAvailableNow()) {
            throw new IllegalArgumentException(
                    "--until-final goes with an available-now run (the default trigger): it decides"
                            + " whether the run reads what is there when it starts");
        }
        run.trigger(trigger).untilFinal(untilFinal);
        return runFor != null ? run.runFor(runFor) : run;
    }
}
