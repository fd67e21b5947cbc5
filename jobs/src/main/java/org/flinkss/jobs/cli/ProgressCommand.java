package org.flinkss.jobs.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.jobs.cli.options.CheckpointedQuery;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.output.Stdout;
import org.flinkss.runtime.ops.QueryCheckpoint;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/** Spark's {@code lastProgress} and {@code recentProgress}, kept in the query's checkpoint. */
@Command(
        name = "progress",
        mixinStandardHelpOptions = true,
        description = "The last progress object of a query (Spark's lastProgress), or its history.")
public final class ProgressCommand implements Callable<Integer> {

    @Mixin DataOptions data;
    @Mixin CheckpointedQuery query;

    @Option(
            names = "--all",
            description = "every committed batch, oldest first (Spark's recentProgress, kept)")
    boolean all;

    @Override
    public Integer call() {
        data.refuseJdbcUrl("progress"); // the checkpoint's progress log only
        if (data.objectStoreBase()) {
            data.initializeStorage();
        }
        String name = query.checkpointName(data.base(), "progress");
        QueryCheckpoint checkpoint = QueryCheckpoint.of(data.base(), name);
        PrintStream out = Stdout.utf8();
        if (all) {
            for (ObjectNode p : checkpoint.progress()) {
                out.println(p.toString());
            }
            out.flush();
            return 0;
        }
        ObjectNode last =
                checkpoint
                        .lastProgress()
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "query '"
                                                        + name
                                                        + "' has no progress under "
                                                        + checkpoint
                                                        + ": it has not run yet"));
        out.println(last.toPrettyString());
        out.flush();
        return 0;
    }
}
