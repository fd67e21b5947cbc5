package org.flinkss.course.queries;

import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;

import java.util.List;

/**
 * Topic 11.15: one job, three availableNow queries, each with its own checkpoint named after its
 * layer: bronze (files to {@code events_bronze}), silver ({@code events_bronze} to {@code
 * events_silver}: valid amounts, deduplicated within a 10-minute watermark), gold ({@code
 * events_silver} to {@code events_by_type}: 30-minute windows by type, append mode). Each run
 * handles whatever landed since the last one. A second pipeline run while one is active is refused;
 * a layer that fails stops the pipeline (the layers before it stay committed). The layers are the
 * catalog's {@link QueryCatalog#PIPELINE}.
 */
public final class Pipeline {

    public static final String NAME = QueryCatalog.PIPELINE.queryName();

    private Pipeline() {}

    public static List<Query> layers(RunOptions options, Api api) {
        return layers(QueryRequest.of(options, api));
    }

    /** The layers for a request: {@code --rescued-data} and missing files go to bronze. */
    public static List<Query> layers(QueryRequest request) {
        return QueryCatalog.PIPELINE.createLayers(request);
    }

    public static List<QueryRunner.Result> run(RunOptions options, Api api) {
        return run(QueryRequest.of(options, api));
    }

    /** Runs the layers one after the other, under the pipeline's own lock. */
    public static List<QueryRunner.Result> run(QueryRequest request) {
        return QueryRunner.runInOrder(NAME, layers(request), request.run());
    }
}
