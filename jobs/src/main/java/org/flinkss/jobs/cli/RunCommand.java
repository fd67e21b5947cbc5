package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import org.flinkss.course.event.BadLines;
import org.flinkss.course.event.SchemaEvolution;
import org.flinkss.course.queries.DatabaseWriters;
import org.flinkss.course.queries.Pipeline;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.QueryOption;
import org.flinkss.course.queries.QueryRequest;
import org.flinkss.jobs.cli.options.ApiOption;
import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.CheckpointIntervalOption;
import org.flinkss.jobs.cli.options.Converters;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.options.ExpectOption;
import org.flinkss.jobs.cli.options.FlinkOptions;
import org.flinkss.jobs.cli.options.KafkaOptions;
import org.flinkss.jobs.cli.options.OutputModeOption;
import org.flinkss.jobs.cli.options.ParallelismOption;
import org.flinkss.jobs.cli.options.ProgressOptions;
import org.flinkss.jobs.cli.options.RateLimitOptions;
import org.flinkss.jobs.cli.options.RunOptionGroups;
import org.flinkss.jobs.cli.options.RunTarget;
import org.flinkss.jobs.cli.options.TriggerOptions;
import org.flinkss.jobs.cli.options.WatermarkPolicyOption;
import org.flinkss.jobs.cli.output.RunSummary;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryJar;
import org.flinkss.runtime.query.QueryJarException;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * One run of a query of the catalog with its trigger. The catalog checks the query's options, API
 * and output mode before anything runs. With {@code --jar} and {@code --class}, one run of the
 * user's own query through the same runner ({@link QueryJar}).
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description =
                "One run of a query with its trigger (default available-now: process what is there,"
                        + " commit, stop).")
public final class RunCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin DataOptions data;
    @Mixin RunTarget query;
    @Mixin TriggerOptions trigger;
    @Mixin RateLimitOptions limits;
    @Mixin ParallelismOption parallelism;
    @Mixin CheckpointIntervalOption checkpointInterval;
    @Mixin ApiOption api;
    @Mixin OutputModeOption outputMode;
    @Mixin KafkaOptions kafka;

    @Option(
            names = "--skip-missing-files",
            description =
                    "bronze and the pipeline's bronze: a landing file that a batch planned but that"
                        + " is gone when read is skipped instead of failing the run, with a"
                        + " warning, and recorded once in the batch's progress and in"
                        + " events_bronze_skipped_files (default: the run fails, naming the file)")
    boolean skipMissingFiles;

    @Option(
            names = "--rescued-data",
            description =
                    "bronze and pipeline: keep JSON fields that are not in the schema, and values"
                        + " of the wrong type, in a column _rescued_data of events_bronze with the"
                        + " file's path (Auto Loader's rescuedDataColumn), instead of skipping them"
                        + " or quarantining the line. A checkpoint made with it only runs with it;"
                        + " one made without it goes on with it (the column added, null before).")
    boolean rescuedData;

    @Option(
            names = "--schema-evolution",
            paramLabel = "MODE",
            converter = Converters.SchemaEvolutionValue.class,
            description =
                    "bronze: what a landed top-level JSON field that events_bronze does not have"
                        + " does (Auto Loader's schemaEvolutionMode). none (default): skipped, or"
                        + " kept in _rescued_data with --rescued-data; add-new-columns: it becomes"
                        + " a nullable column (BIGINT, DOUBLE, BOOLEAN or STRING, inferred from its"
                        + " first value) in the commit of the batch that brought it, earlier rows"
                        + " null, the checkpoint going on. A value of another type than its"
                        + " column's fails the run naming file, line and both types, or is rescued"
                        + " with --rescued-data.")
    SchemaEvolution schemaEvolution;

    @Option(
            names = "--bad-lines",
            paramLabel = "MODE",
            converter = Converters.BadLinesValue.class,
            description =
                    "bronze, pipeline and kafka-events: what a JSON line (or value) that Spark's"
                        + " reader does not read cleanly gives. permissive (default, Spark's"
                        + " PERMISSIVE mode): the row Spark's table holds (a value of the wrong"
                        + " type null, a line that is not a JSON object a row of nulls, text after"
                        + " the object ignored), and the line recorded in the quarantine table;"
                        + " quarantine-only: the quarantine table only")
    BadLines badLines;

    @Option(
            names = "--dry-run",
            description =
                    "Say what the run would do, and run nothing: the restore point it would use,"
                        + " whether the checkpoint serves this query, what each source would read"
                        + " next under the limits, and whether each operator's state in the restore"
                        + " point is kept or refused. Writes nothing; exit 0")
    boolean dryRun;

    @Mixin ProgressOptions progress;
    @Mixin FlinkOptions flink;
    @Mixin ExpectOption expect;
    @Mixin WatermarkPolicyOption watermarkPolicy;

    @Override
    public Integer call() {
        if (query.isJar()) {
            return runJar();
        }
        QueryCatalog q = query.query();
        RunOptions.Builder options = options();
        kafka.applyTo(options);
        RunOptions run = options.build();
        QueryRequest request =
                new QueryRequest(
                        run,
                        api.api(),
                        rescuedData,
                        skipMissingFiles,
                        kafka,
                        badLines,
                        schemaEvolution);
        q.check(request);
        if (q.isComposite() && !run.expectations().isEmpty()) {
            // One rule would reach bronze's, silver's and gold's tables alike.
            throw new ParameterException(
                    spec.commandLine(),
                    "--expect is for one query: run "
                            + q.layers().stream().map(QueryCatalog::queryName).toList()
                            + " one by one with their own rules");
        }
        if (!DatabaseWriters.writes(q, run.outputMode())) {
            data.refuseJdbcUrl("run " + q);
        }
        // The queries that read the landing folder are those that take its options.
        BaseFolder.requireForRun(
                data,
                q.options().contains(QueryOption.SKIP_MISSING_FILES),
                q.options().contains(QueryOption.KAFKA_SOURCE));
        if (dryRun) {
            List<Query> queries =
                    q.isComposite() ? Pipeline.layers(request) : List.of(q.create(request));
            for (Query built : queries) {
                QueryRunner.dryRun(built, run).lines().forEach(System.out::println);
            }
            return 0;
        }
        if (q.isComposite()) {
            List<QueryRunner.Result> results = Pipeline.run(request);
            for (int i = 0; i < results.size(); i++) {
                System.out.println(RunSummary.of(q.layers().get(i).queryName(), results.get(i)));
            }
            return 0;
        }
        Query built = q.create(request);
        QueryRunner.Result result = QueryRunner.run(built, run);
        System.out.println(RunSummary.of(built.name(), result));
        return 0;
    }

    /**
     * The user's own query: the jar and class are checked before anything is written (exit 2 on a
     * refusal), then it runs as a catalog query does, on {@code <base>/_cp/<its name>}.
     */
    private int runJar() {
        try (QueryJar jar = query.queryJar()) {
            RunOptions.Builder options = options();
            try {
                jar.shipWith(options);
            } catch (QueryJarException e) {
                throw query.refused(e);
            }
            RunOptions run = options.build();
            // As sql --file: the base must exist; a user's query names its own sources.
            BaseFolder.requireForRun(data, false);
            QueryRunner.Result result = jar.run(run);
            System.out.println(RunSummary.of(jar.query().name(), result));
            return 0;
        }
    }

    /** The run's options from the command line, but Kafka's (a catalog query's only). */
    private RunOptions.Builder options() {
        return RunOptionGroups.assemble(
                        data,
                        trigger,
                        limits,
                        parallelism,
                        checkpointInterval,
                        progress,
                        flink,
                        expect,
                        watermarkPolicy)
                .skipMissingFiles(skipMissingFiles)
                .outputMode(outputMode.mode());
    }
}
