package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import org.flinkss.jobs.cli.output.Logging;
import org.flinkss.runtime.query.RunOptions;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Flink's own conventions on a command that runs a job: {@code -D key=value} (repeatable) for the
 * job's Flink configuration, {@code --web-ui} for an embedded run's web UI, {@code --verbose} for
 * Flink's INFO logs (docs/command-line.md, Flink options; docs/monitoring.md).
 */
public final class FlinkOptions {

    /** The command this mixin is part of: a misplaced option is its usage error (exit 2). */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(
            names = "-D",
            paramLabel = "KEY=VALUE",
            mapFallbackValue = "",
            description =
                    "a Flink option for the job, repeatable (-D parallelism.default=4 -D"
                        + " metrics.reporter.prom.port=9249): over flink-conf/config.yaml and the"
                        + " run's own settings; the checkpoint's own keys are refused")
    Map<String, String> flinkOptions = new LinkedHashMap<>();

    @Option(
            names = "--web-ui",
            description =
                    "embedded run: serve Flink's web UI on the configuration's REST port"
                            + " (rest.port, rest.bind-port: 8081-8099 in flink-conf) instead of a"
                            + " random one, and print its address")
    boolean webUi;

    @Option(
            names = "--verbose",
            description = "Flink's INFO logs on stderr (default: warnings and errors only)")
    void verbose(boolean verbose) {
        if (verbose) {
            Logging.verbose();
        }
    }

    /** The {@code -D} options, in the order given. */
    public Map<String, String> values() {
        return Map.copyOf(flinkOptions);
    }

    public RunOptions.Builder applyTo(RunOptions.Builder run) {
        flinkOptions.forEach(
                (key, value) -> {
                    try {
                        Logging.refuseAsFlinkOption(key);
                    } catch (IllegalArgumentException e) {
                        throw new ParameterException(command.commandLine(), e.getMessage(), e);
                    }
                    run.flinkOption(key, value);
                });
        return run.webUi(webUi);
    }
}
