package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.jobs.cli.output.ProgressLines;
import org.flinkss.runtime.query.RunOptions;

import java.io.PrintStream;

/**
 * How a run shows its progress: one line per batch after the plan ({@code --progress human}, the
 * default, on a terminal and in a pipe alike), Spark's progress object per batch ({@code --progress
 * json}, as earlier versions printed it), or nothing but the summary ({@code --quiet}). Progress
 * goes to stdout; the run's notes and warnings to stderr.
 */
public final class ProgressOptions {

    /** What {@code --progress} takes. */
    public enum Format {
        HUMAN,
        JSON
    }

    @Option(
            names = "--progress",
            paramLabel = "FORMAT",
            defaultValue = "human",
            converter = Converters.ProgressFormat.class,
            description =
                    "human: the plan, then one line per batch; json: each batch's progress object"
                            + " (Spark's lastProgress, as earlier versions printed it)"
                            + " (default: ${DEFAULT-VALUE})")
    Format format = Format.HUMAN;

    @Option(
            names = "--quiet",
            description =
                    "print only the summary and warnings: no progress, no Flink configuration or"
                            + " REST address")
    boolean quiet;

    /**
     * Progress to {@code out}; notes (the Flink configuration read, the REST address) and warnings
     * to {@code err}.
     */
    public RunOptions.Builder applyTo(RunOptions.Builder run, PrintStream out, PrintStream err) {
        run.out(err).printProgress(false).announce(!quiet);
        if (quiet) {
            return run;
        }
        return run.listener(
                format == Format.JSON ? ProgressLines.json(out, err) : ProgressLines.human(out));
    }
}
