package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import org.flinkss.course.recompute.Recompute;
import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.Converters;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.runtime.time.Watermarks;

import java.time.Instant;
import java.util.concurrent.Callable;

/**
 * {@code recompute}: the course's "periodic batch recompute from bronze" ({@link Recompute}) of the
 * closed windows of a windowed table in {@code [--from, --to)}, and one line saying what it
 * replaced.
 */
@Command(
        name = "recompute",
        mixinStandardHelpOptions = true,
        description =
                "Rebuild the closed windows of a windowed table in [--from, --to) from bronze, as a"
                        + " batch job, replacing exactly those rows.")
public final class RecomputeCommand implements Callable<Integer> {

    @Mixin DataOptions data;

    @Parameters(
            paramLabel = "TABLE",
            description = "events_5min, events_sliding, events_sessions or events_by_type")
    String table;

    @Option(
            names = "--from",
            required = true,
            converter = Converters.Timestamp.class,
            description =
                    "first window start, e.g. 2025-03-01T00:00:00Z or '2025-03-01 00:00:00' (UTC)")
    Instant from;

    @Option(
            names = "--to",
            required = true,
            converter = Converters.Timestamp.class,
            description = "windows must end by this time")
    Instant to;

    @Override
    public Integer call() {
        BaseFolder.refuseFile(data);
        Recompute.Result result =
                Recompute.recompute(
                        data.openWarehouse(),
                        data.existingDatabase(),
                        data.base(),
                        table,
                        from.toEpochMilli(),
                        to.toEpochMilli());
        System.out.printf(
                "%s: replaced %d rows with %d recomputed rows for windows in [%s, %s) in %s%n",
                table,
                result.removed,
                result.written,
                Watermarks.formatInstant(result.from),
                Watermarks.formatInstant(result.to),
                result.where);
        return 0;
    }
}
