package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import org.flinkss.jobs.cli.options.CheckpointedQuery;
import org.flinkss.jobs.cli.options.Converters;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.options.HelpOptions;
import org.flinkss.jobs.cli.output.StateOutput;
import org.flinkss.jobs.cli.output.Stdout;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * {@code state summary|show|export <query>}: what a query keeps between runs, read from the restore
 * point its next run would restore (or a batch's), with Flink's State Processor API: Spark's {@code
 * statestore} source. Read-only: no lock, nothing written; a running query is fine.
 */
@Command(
        name = "state",
        mixinStandardHelpOptions = true,
        description = "Read a query's state from its checkpoint (Spark's statestore source).",
        subcommands = {
            StateCommand.Summary.class,
            StateCommand.Show.class,
            StateCommand.Export.class
        })
public final class StateCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        return CommandGroup.noCommandNamed(spec);
    }

    /** A subcommand on one query's state: the data options, the query and the batch. */
    abstract static class OnState implements Callable<Integer> {
        @Mixin DataOptions data;
        @Mixin CheckpointedQuery query;
        @Mixin HelpOptions help;

        @Option(
                names = "--batch",
                paramLabel = "N",
                converter = Converters.BatchId.class,
                description =
                        "the state after batch N, among the restore points the checkpoint still"
                                + " holds (default: the one the next run restores)")
        Long batch;

        @Override
        public final Integer call() {
            data.refuseJdbcUrl("state"); // the checkpoint only
            if (data.objectStoreBase()) {
                data.initializeStorage();
            }
            String name = query.checkpointName(data.base(), "state");
            StateOutput state = StateOutput.of(data.base(), name, query.catalog(), batch);
            PrintStream out = Stdout.utf8();
            run(state, out);
            out.flush();
            return 0;
        }

        abstract void run(StateOutput state, PrintStream out);
    }

    @Command(
            name = "summary",
            description =
                    "The restore point read and the query's stateful operators: uid, name, kind,"
                            + " state names, keys, rows and bytes.")
    static final class Summary extends OnState {
        @Override
        void run(StateOutput state, PrintStream out) {
            state.summary(out);
        }
    }

    @Command(
            name = "show",
            description =
                    "The keyed state as rows: open windows and sessions with their partial count"
                            + " and sum, kept ids with their expiry, a join's buffered rows.")
    static final class Show extends OnState {
        @Option(
                names = "--limit",
                defaultValue = "20",
                converter = Converters.PositiveInt.class,
                description = "rows to show per operator (default: ${DEFAULT-VALUE})")
        int limit;

        @Option(
                names = "--operator",
                paramLabel = "UID",
                description = "only this operator (its uid, as 'state summary' lists it)")
        String operator;

        @Override
        void run(StateOutput state, PrintStream out) {
            state.show(out, operator, limit);
        }
    }

    @Command(
            name = "export",
            description = "The keyed state as CSV: all rows, sorted, with one header line.")
    static final class Export extends OnState {
        @Option(names = "--csv", required = true, description = "as CSV (the only format so far)")
        boolean csv;

        @Option(
                names = "--operator",
                paramLabel = "UID",
                description = "the operator (its uid); needed when the query has several")
        String operator;

        @Override
        void run(StateOutput state, PrintStream out) {
            state.export(out, operator);
        }
    }
}
