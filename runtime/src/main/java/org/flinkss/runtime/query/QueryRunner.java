package org.flinkss.runtime.query;

import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.runner.BuiltJob;
import org.flinkss.runtime.runner.QueryRun;
import org.flinkss.runtime.runner.RunOutcome;
import org.flinkss.runtime.table.Warehouse;

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
        Result(RunOutcome outcome) {
            super(outcome);
        }
    }

    /** Runs {@code query} as {@code options} say and returns once the run is over. */
    public static Result run(Query query, RunOptions options) {
        String name = query.name();
        QueryRun run = new QueryRun(name, options.checkpointOf(name), options.runSettings());
        return new Result(
                run.run(
                        (env, scope) -> {
                            Warehouse warehouse = new Warehouse(options.warehouse);
                            QueryContext context =
                                    new QueryContext(name, env, scope, options, warehouse);
                            query.build(context);
                            return new Built(context, warehouse);
                        }));
    }

    /** A query's graph as the run sees it. */
    private static final class Built implements BuiltJob {
        private final QueryContext context;
        private final Warehouse warehouse;

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
        public void prepare() {
            context.prepare();
        }

        @Override
        public void afterFinalSavepoint() {
            for (String table : context.tables()) {
                warehouse.deleteOrphans(table);
            }
        }
    }
}
