package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.runtime.query.OutputMode;

/** {@code --output-mode append|update|complete}: Spark's {@code outputMode}. */
public final class OutputModeOption {

    @Option(
            names = "--output-mode",
            defaultValue = "append",
            paramLabel = "MODE",
            converter = Converters.OutputModeValue.class,
            description =
                    "append (final rows), update (changed rows, MERGEd into the Delta table; with"
                        + " --jdbc-url upserted into that database) or complete (the whole result,"
                        + " the table replaced at each commit); window queries take all three"
                        + " (default: ${DEFAULT-VALUE})")
    OutputMode mode;

    public OutputMode mode() {
        return mode;
    }
}
