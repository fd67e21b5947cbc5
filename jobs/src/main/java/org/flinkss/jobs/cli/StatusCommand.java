package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.options.QueryArgument;
import org.flinkss.jobs.cli.output.StatusReport;
import org.flinkss.jobs.cli.output.Stdout;
import org.flinkss.runtime.ops.QueryCheckpoint;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * {@code status <query>}: what a query's checkpoint was made with (API, output mode, flags, its
 * identity), its last batch and watermark, the restore points a next run starts from, and where
 * each of its tables' rows are (docs/command-line.md, Status).
 */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description =
                "What a query's checkpoint was made with, its last batch and watermark, its restore"
                        + " points, and where its tables' rows are.")
public final class StatusCommand implements Callable<Integer> {

    @Mixin DataOptions data;
    @Mixin QueryArgument query;

    @Override
    public Integer call() {
        String name = query.query().single("status").queryName();
        if (data.objectStoreBase()) {
            data.initializeStorage();
        }
        QueryCheckpoint checkpoint = QueryCheckpoint.of(data.base(), name);
        PrintStream out = Stdout.utf8();
        StatusReport.lines(checkpoint.status(), data.tables()).forEach(out::println);
        out.flush();
        return 0;
    }
}
