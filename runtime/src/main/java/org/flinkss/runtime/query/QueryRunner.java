package org.flinkss.runtime.query;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLock;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.checkpoint.SkippedCommit;
import org.flinkss.runtime.runner.BuiltJob;
import org.flinkss.runtime.runner.JobBuilder;
import org.flinkss.runtime.runner.Preflight;
import org.flinkss.runtime.runner.PreflightReport;
import org.flinkss.runtime.runner.QueryRun;
import org.flinkss.runtime.runner.RunOutcome;
import org.flinkss.runtime.table.Warehouse;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a {@link Query} with its trigger on its checkpoint: Spark's {@code writeStream...start()}
 * and {@code awaitTermination()} in one call. How a run goes (the lock, the identity check, the
 * restore, the stop with a savepoint, the progress) is {@link QueryRun}'s; this builds the query's
 * graph for it on a {@link QueryContext}.
 */
public final class QueryRunner {

    private QueryRunner() {}

    /** The outcome of a run: the batches it committed and where its state now is. */
    public static final class Result extends RunOutcome {

        /**
         * The batches this run found already committed to a table (a replay after a restore from an
         * older checkpoint, or from none) and so did not write again.
         */
        public final List<SkippedCommit> skippedCommits;

        Result(RunOutcome outcome, List<SkippedCommit> skippedCommits) {
            super(outcome);
            this.skippedCommits = List.copyOf(skippedCommits);
        }
    }

    /** Runs {@code query} as {@code options} say and returns once the run is over. */
    public static Result run(Query query, RunOptions options) {
        String name = query.name();
        CheckpointLayout layout = options.checkpointOf(name);
        QueryRun run = new QueryRun(name, layout, options.runSettings, options.warehouse);
        RunOutcome outcome = run.run(builder(query, options, false));
        List<SkippedCommit> skipped = SkippedCommit.readAll(layout, outcome.runId);
        SkippedCommit.clearAll(layout);
        report(name, skipped, options);
        return new Result(outcome, skipped);
    }

    /**
     * What a run of {@code query} as {@code options} say would do, writing nothing ({@code run
     * --dry-run}): see {@link Preflight}.
     */
    public static PreflightReport dryRun(Query query, RunOptions options) {
        String name = query.name();
        return new Preflight(
                        name, options.checkpointOf(name), options.runSettings, options.warehouse)
                .check(builder(query, options, true));
    }

    /**
     * Builds {@code query}'s graph on a run's environment, as {@code options} say; for a dry run,
     * {@code --until-final} is reported ({@link BuiltJob#untilFinalRefusals}), not thrown.
     */
    private static JobBuilder builder(Query query, RunOptions options, boolean dryRun) {
        return (env, scope) -> {
            Warehouse warehouse = new Warehouse(options.warehouse);
            QueryContext context = new QueryContext(query.name(), env, scope, options, warehouse);
            query.build(context);
            context.checkExpectationsApplied();
            if (!dryRun) {
                context.checkUntilFinal();
            }
            context.checkWatermarkPolicy();
            return new Built(context, warehouse);
        };
    }

    /**
     * Runs {@code queries} one after the other, each on its own checkpoint, as one group named
     * {@code group} (the course's pipeline: bronze, silver, gold): the group holds a lock of its
     * own ({@code <base>/_cp/_<group>}) meanwhile, so a second run of the group, in this process or
     * another, is refused. A query that fails stops the group; those before it stay committed.
     */
    public static List<Result> runInOrder(String group, List<Query> queries, RunOptions options) {
        try (CheckpointLock lock =
                CheckpointLock.acquire(options.checkpointOf("_" + group), group)) {
            List<Result> results = new ArrayList<>();
            for (Query query : queries) {
                results.add(run(query, options));
            }
            return results;
        }
    }

    /** {@code bronze: batch 3 already committed to events_bronze, ...: skipped}, per batch. */
    private static void report(String name, List<SkippedCommit> skipped, RunOptions options) {
        Map<Long, List<String>> tablesByBatch = new LinkedHashMap<>();
        for (SkippedCommit s : skipped) {
            tablesByBatch.computeIfAbsent(s.batchId(), b -> new ArrayList<>()).add(s.table());
        }
        tablesByBatch.forEach(
                (batch, tables) ->
                        options.runSettings
                                .out()
                                .println(
                                        name
                                                + ": batch "
                                                + batch
                                                + " already committed to "
                                                + String.join(", ", tables)
                                                + ": skipped"));
    }

    /** A query's graph as the run sees it. */
    private static final class Built implements BuiltJob {
        private final QueryContext context;
        private final Warehouse warehouse;
        @Nullable private List<UntilFinal.Finding> untilFinal;

        Built(QueryContext context, Warehouse warehouse) {
            this.context = context;
            this.warehouse = warehouse;
        }

        @Override
        public QueryIdentity identity() {
            return context.identity();
        }

        @Override
        public List<String> sourceNames() {
            return context.sourceNames();
        }

        @Override
        public Map<String, String> sourceDescriptions() {
            return context.sourceDescriptions();
        }

        @Override
        public Map<String, String> sinkDescriptions() {
            return context.sinkDescriptions();
        }

        @Override
        public List<String> skippedFilesTables() {
            return context.skippedFilesTables();
        }

        @Override
        public List<String> tableRefusals() {
            return context.tableRefusals();
        }

        @Override
        public List<String> untilFinalRefusals() {
            return untilFinal(false);
        }

        @Override
        public List<String> untilFinalNotes() {
            return untilFinal(true);
        }

        /** The lines of {@code --until-final}'s findings that are final or not, read once. */
        private List<String> untilFinal(boolean isFinal) {
            if (untilFinal == null) {
                untilFinal = context.untilFinalFindings();
            }
            return untilFinal.stream()
                    .filter(f -> f.isFinal() == isFinal)
                    .map(UntilFinal.Finding::line)
                    .toList();
        }

        @Override
        public List<String> commitsBeforeRun() {
            return context.commitsBeforeRun();
        }

        @Override
        public void prepare() {
            context.prepare();
        }

        @Override
        public void afterFinalSavepoint() {
            if (context.tables().isEmpty()) {
                return;
            }
            // Every batch of the run is committed: files of the query that no version references
            // were written by attempts that failed, or for batches found already committed. Where
            // the last clean-up ended is recorded in the checkpoint, so that a run that left no
            // such file reads only the log entries committed since.
            CheckpointLayout layout = context.scope().layout();
            String queryId = QueryIdentity.idIn(layout);
            for (String table : context.tables()) {
                warehouse.deleteUncommitted(table, queryId, layout.cleanupRecord(table));
            }
        }
    }
}
