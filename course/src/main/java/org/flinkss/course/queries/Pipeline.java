package org.flinkss.course.queries;

import org.flinkss.runtime.checkpoint.CheckpointDir;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;

import java.util.ArrayList;
import java.util.List;

/**
 * Topic 11.15: one job, three availableNow queries, each with its own checkpoint named after its
 * layer: bronze (files to {@code events_bronze}), silver ({@code events_bronze} to {@code
 * events_silver}: valid amounts, deduplicated within a 10-minute watermark), gold ({@code
 * events_silver} to {@code events_by_type}: 30-minute windows by type, append mode). Each run
 * handles whatever landed since the last one. A second pipeline run while one is active is refused;
 * a layer that fails stops the pipeline (the layers before it stay committed).
 */
public final class Pipeline {

    public static final String NAME = "pipeline";

    private Pipeline() {}

    public static List<Query> layers(RunOptions options, String api) {
        return layers(options, api, false);
    }

    /**
     * @param rescuedData bronze's rescued data column: {@code run pipeline --rescued-data}
     */
    public static List<Query> layers(RunOptions options, String api, boolean rescuedData) {
        return List.of(
                new BronzeQuery(options.events(), rescuedData),
                DedupQuery.silver(api),
                WindowQuery.gold(api));
    }

    public static List<QueryRunner.Result> run(RunOptions options, String api) {
        return run(options, api, false);
    }

    public static List<QueryRunner.Result> run(
            RunOptions options, String api, boolean rescuedData) {
        CheckpointDir pipeline = new CheckpointDir(options.checkpointOf("_" + NAME));
        try (CheckpointDir.Lock lock = pipeline.lock(NAME)) {
            List<QueryRunner.Result> results = new ArrayList<>();
            for (Query layer : layers(options, api, rescuedData)) {
                results.add(QueryRunner.run(layer, options));
            }
            return results;
        }
    }
}
