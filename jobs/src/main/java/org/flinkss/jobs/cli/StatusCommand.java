package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import org.flinkss.course.queries.DatabaseWriters;
import org.flinkss.jobs.cli.options.CheckpointedQuery;
import org.flinkss.jobs.cli.options.DataOptions;
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
    @Mixin CheckpointedQuery query;

    @Override
    public Integer call() {
        // A catalog query that never writes the SQL database has none of its tables there.
        query.catalog()
                .filter(q -> !DatabaseWriters.mayWrite(q))
                .ifPresent(q -> data.refuseJdbcUrl("status " + q));
        if (data.objectStoreBase()) {
            data.initializeStorage();
        }
        // A catalog query, or one of the user's (sql --file, run --jar) that has a checkpoint.
        String name = query.checkpointName(data.base(), "status");
        QueryCheckpoint checkpoint = QueryCheckpoint.of(data.base(), name);
        PrintStream out = Stdout.utf8();
        StatusReport.lines(checkpoint.status(), data.tables()).forEach(out::println);
        out.flush();
        return 0;
    }
}
