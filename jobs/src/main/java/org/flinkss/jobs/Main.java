package org.flinkss.jobs;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LandEvents;
import org.flinkss.course.kafka.EventsToKafka;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.Pipeline;
import org.flinkss.course.queries.Queries;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.jdbc.Database;
import org.flinkss.runtime.kafka.KafkaClientProperties;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.RowValues;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.trigger.Trigger;

import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command line: {@code java -jar flinkss-jobs.jar <command>}, or the same arguments after
 * {@code flink run flinkss-jobs-cluster.jar}. Every command takes {@code --help}.
 */
@Command(
        name = "flinkss",
        mixinStandardHelpOptions = true,
        version = "flink-structured-streaming 0.1.0",
        description = "Spark Structured Streaming's course module, as Apache Flink jobs.",
        subcommands = {
            Main.LandEventsCommand.class,
            Customers.class,
            Main.RunCommand.class,
            Main.TableCommand.class,
            Main.ProgressCommand.class,
            Recompute.class,
            Reset.class,
            Demo.class,
            Report.class,
            Bench.class,
        })
public final class Main implements Callable<Integer> {

    @Override
    public Integer call() {
        new CommandLine(this).usage(System.out);
        return 0;
    }

    public static void main(String[] args) {
        if (underFlinkRun()) {
            startHadoopShutdownHooksOutsideUserCode();
        }
        int code = execute(args);
        // Flink's embedded cluster leaves non-daemon threads behind: exit explicitly. Under
        // `flink run` the client owns the JVM and only a failure must end it with a code.
        if (code != 0 || !underFlinkRun()) {
            System.out.flush();
            System.exit(code);
        }
    }

    public static int execute(String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    Throwable cause = e;
                    if (cause instanceof QueryException
                            || cause instanceof IllegalArgumentException
                            || cause instanceof IllegalStateException) {
                        commandLine.getErr().println("error: " + cause.getMessage());
                    } else {
                        commandLine.getErr().println("error: " + cause);
                        cause.printStackTrace(commandLine.getErr());
                    }
                    return 1;
                });
        return cli.execute(args);
    }

    private static boolean underFlinkRun() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return loader != null && loader.getClass().getName().contains("FlinkUserCodeClassLoader");
    }

    /**
     * Hadoop (Parquet reads in {@code table ...}) starts a JVM shutdown hook thread on first use,
     * and a thread inherits the creator's context class loader: under {@code flink run} that is the
     * user-code loader, which the client closes before the JVM exits, so the hook failed with
     * "Trying to access closed classloader". Starting it under Hadoop's own loader avoids that.
     */
    private static void startHadoopShutdownHooksOutsideUserCode() {
        Thread thread = Thread.currentThread();
        ClassLoader user = thread.getContextClassLoader();
        try {
            Class<?> hooks =
                    Class.forName("org.apache.hadoop.util.ShutdownHookManager", false, user);
            thread.setContextClassLoader(hooks.getClassLoader());
            Class.forName(hooks.getName(), true, hooks.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            // no Hadoop on this class path: nothing to do
        } finally {
            thread.setContextClassLoader(user);
        }
    }

    /** Options every command shares: where the data is. */
    static final class Common {
        @Option(
                names = "--base",
                paramLabel = "DIR",
                description =
                        "landing folder <base>/events and checkpoints <base>/_cp/<query> (default:"
                                + " ${DEFAULT-VALUE})")
        Path base = Paths.get("data");

        @Option(
                names = "--warehouse",
                paramLabel = "DIR",
                description = "the tables (default: <base>/warehouse)")
        Path warehouse;

        @Option(
                names = "--jdbc-url",
                paramLabel = "URL",
                description =
                        "the database of upsert tables: jdbc:sqlite:<file> or"
                                + " jdbc:postgresql://host:port/db (default: SQLite in"
                                + " <warehouse>/warehouse.db); credentials from"
                                + " FLINKSS_JDBC_USER/FLINKSS_JDBC_PASSWORD or the file named by"
                                + " FLINKSS_JDBC_PROPERTIES")
        String jdbcUrl;

        Path warehouse() {
            return warehouse != null ? warehouse : base.resolve("warehouse");
        }

        Database database() {
            return jdbcUrl != null ? new Database(jdbcUrl) : Database.sqliteIn(warehouse());
        }

        /** A table by name: Parquet files in the warehouse, else a table of the SQL database. */
        Tables tables() {
            return new Tables(new Warehouse(warehouse()), database());
        }

        Path events() {
            return base.resolve("events");
        }
    }

    @Command(
            name = "land-events",
            mixinStandardHelpOptions = true,
            description =
                    "The course's land_events(batch, start, n): n events into"
                        + " <base>/events/batch_<batch>/ as JSON lines, or with --to-kafka into a"
                        + " topic.")
    static final class LandEventsCommand implements Callable<Integer> {
        @Mixin Common common;

        @Option(
                names = "--batch",
                required = true,
                description = "batch number: the folder batch_<N>")
        int batch;

        @Option(names = "--start", required = true, description = "first event id")
        long start;

        @Option(
                names = "--n",
                defaultValue = "500",
                description = "number of events (default: ${DEFAULT-VALUE})")
        int n;

        @Option(
                names = "--api",
                defaultValue = "datastream",
                description = "datastream or table (default: ${DEFAULT-VALUE})")
        String api;

        @Option(
                names = "--to-kafka",
                description =
                        "write the events to a Kafka topic instead (key event_id, value the JSON"
                                + " line)")
        boolean toKafka;

        @Option(
                names = "--bootstrap-servers",
                paramLabel = "H:P[,H:P]",
                description = "--to-kafka: Kafka's bootstrap servers")
        String bootstrapServers;

        @Option(names = "--topic", paramLabel = "T", description = "--to-kafka: the topic")
        String topic;

        @Option(
                names = "--partitions",
                paramLabel = "N",
                description =
                        "--to-kafka: create the topic with N partitions if it does not exist"
                                + " (default: leave it to the broker)")
        Integer partitions;

        @Option(
                names = "--kafka-properties",
                paramLabel = "FILE",
                description =
                        "--to-kafka: Kafka client settings (security) as a properties file;"
                                + " FLINKSS_KAFKA_<NAME> variables override it")
        Path kafkaProperties;

        @Override
        public Integer call() {
            if (toKafka) {
                Map<String, String> properties =
                        KafkaClientProperties.load(kafkaProperties, System.getenv());
                String servers =
                        bootstrapServers != null
                                ? bootstrapServers
                                : properties.get("bootstrap.servers");
                if (servers == null || topic == null) {
                    throw new IllegalArgumentException(
                            "land-events --to-kafka needs --bootstrap-servers H:P and --topic T");
                }
                Map<Integer, Integer> written =
                        EventsToKafka.write(
                                servers,
                                topic,
                                Optional.ofNullable(partitions),
                                properties,
                                EventGenerator.events(start, n));
                System.out.println(
                        "landed "
                                + n
                                + " events (ids "
                                + start
                                + ".."
                                + (start + n - 1)
                                + ", batch "
                                + batch
                                + ") in topic "
                                + topic
                                + " at "
                                + servers
                                + ", records per partition "
                                + written);
                return 0;
            }
            if (bootstrapServers != null
                    || topic != null
                    || partitions != null
                    || kafkaProperties != null) {
                throw new IllegalArgumentException(
                        "--bootstrap-servers, --topic, --partitions and --kafka-properties go with"
                                + " --to-kafka");
            }
            Path folder = land(common.events(), batch, start, n, api);
            System.out.println(
                    "landed "
                            + n
                            + " events (ids "
                            + start
                            + ".."
                            + (start + n - 1)
                            + ") in "
                            + folder);
            return 0;
        }

        static Path land(Path events, int batch, long start, int n, String api) {
            switch (api) {
                case "datastream":
                    return LandEvents.withDataStream(
                            StreamExecutionEnvironment.getExecutionEnvironment(),
                            events,
                            batch,
                            start,
                            n);
                case "table":
                    return LandEvents.withTable(
                            TableEnvironment.create(EnvironmentSettings.inBatchMode()),
                            events,
                            batch,
                            start,
                            n);
                default:
                    throw new IllegalArgumentException(
                            "unknown --api '" + api + "': use datastream or table");
            }
        }
    }

    @Command(
            name = "run",
            mixinStandardHelpOptions = true,
            description =
                    "One run of a query with its trigger (default available-now: process what is"
                            + " there, commit, stop).")
    static final class RunCommand implements Callable<Integer> {
        @Mixin Common common;

        @Parameters(
                index = "0",
                paramLabel = "QUERY",
                description = "the query: ${COMPLETION-CANDIDATES}",
                completionCandidates = Queries.Names.class)
        String query;

        @Option(
                names = "--trigger",
                defaultValue = "available-now",
                description =
                        "available-now, processing-time=<interval>, continuous, or once"
                                + " (deprecated) (default: ${DEFAULT-VALUE})")
        String trigger;

        @Option(
                names = "--max-files-per-trigger",
                defaultValue = "0",
                paramLabel = "N",
                description =
                        "split a backlog into batches of at most N files, each committed on its own"
                                + " (default: no limit)")
        int maxFilesPerTrigger;

        @Option(
                names = "--max-bytes-per-trigger",
                paramLabel = "SIZE",
                description =
                        "file sources: batches of at most SIZE bytes of files (e.g. 64m, 1g), one"
                                + " file at least (default: no limit)")
        String maxBytesPerTrigger;

        @Option(
                names = "--skip-missing-files",
                description =
                        "bronze and the pipeline's bronze: a landing file that a batch planned but"
                            + " that is gone when read is skipped instead of failing the run, with"
                            + " a warning, and recorded once in the batch's progress and in"
                            + " events_bronze_skipped_files (default: the run fails, naming the"
                            + " file)")
        boolean skipMissingFiles;

        @Option(
                names = "--parallelism",
                paramLabel = "N",
                description = "parallelism of the job (default: flink-conf)")
        Integer parallelism;

        @Option(
                names = "--checkpoint-interval",
                paramLabel = "DURATION",
                description =
                        "checkpoint cadence within a run (default: the trigger's interval, 1s for"
                                + " available-now)")
        String checkpointInterval;

        @Option(
                names = "--api",
                defaultValue = "datastream",
                description =
                        "datastream or table, for queries that exist in both (default:"
                                + " ${DEFAULT-VALUE})")
        String api;

        @Option(
                names = "--outer",
                description = "view-then-buy: the left outer join, into view_then_buy_left")
        boolean outer;

        @Option(
                names = "--output-mode",
                defaultValue = "append",
                paramLabel = "MODE",
                description =
                        "append (final rows), update (changed rows, upserted into the SQL database)"
                            + " or complete (the whole result, the table replaced at each commit);"
                            + " window queries take all three (default: ${DEFAULT-VALUE})")
        String outputMode;

        @Option(
                names = "--rescued-data",
                description =
                        "bronze and pipeline: keep JSON fields that are not in the schema, and"
                            + " values of the wrong type, in a column _rescued_data of"
                            + " events_bronze with the file's path (Auto Loader's"
                            + " rescuedDataColumn), instead of skipping them or quarantining the"
                            + " line. A checkpoint made with it only runs with it, and the"
                            + " reverse.")
        boolean rescuedData;

        @Option(
                names = "--quiet",
                description = "print only the summary, not each batch's progress")
        boolean quiet;

        @Option(
                names = "--run-for",
                paramLabel = "DURATION",
                description =
                        "processing-time and continuous triggers: stop with a savepoint after this"
                                + " long (default: until Ctrl-C)")
        String runFor;

        @Mixin KafkaArgs kafka;

        @Override
        public Integer call() {
            if (skipMissingFiles
                    && !query.equals(BronzeQuery.NAME)
                    && !query.equals(Pipeline.NAME)) {
                throw new IllegalArgumentException(
                        "--skip-missing-files is an option of the queries that read landing files ("
                                + BronzeQuery.NAME
                                + ", "
                                + Pipeline.NAME
                                + "), not of '"
                                + query
                                + "'");
            }
            RunOptions.Builder options =
                    RunOptions.builder()
                            .base(common.base)
                            .warehouse(common.warehouse())
                            .trigger(Trigger.parse(trigger))
                            .parallelism(parallelism)
                            .maxFilesPerTrigger(maxFilesPerTrigger)
                            .maxBytesPerTrigger(
                                    maxBytesPerTrigger == null ? 0 : parseBytes(maxBytesPerTrigger))
                            .skipMissingFiles(skipMissingFiles)
                            .jdbcUrl(common.jdbcUrl)
                            .outputMode(OutputMode.parse(outputMode))
                            .printProgress(!quiet);
            if (checkpointInterval != null) {
                options.checkpointInterval(Trigger.parseDuration(checkpointInterval));
            }
            if (runFor != null) {
                options.runFor(Trigger.parseDuration(runFor));
            }
            RunOptions run = options.build();
            if (query.equals(Pipeline.NAME)) {
                if (!run.trigger().isAvailableNow()) {
                    throw new IllegalArgumentException(
                            "the pipeline runs its three layers one after the other, so it only"
                                + " takes the available-now trigger; to keep layers running, run"
                                + " bronze, silver and gold each with --trigger "
                                    + trigger);
                }
                if (run.outputMode() != OutputMode.APPEND) {
                    throw new IllegalArgumentException(
                            "the pipeline writes its three layers in append mode, as the course's"
                                    + " run_layer; for gold in "
                                    + outputMode
                                    + " mode, run gold --output-mode "
                                    + outputMode);
                }
                List<QueryRunner.Result> results = Pipeline.run(run, api, rescuedData);
                List<Query> layers = Pipeline.layers(run, api, rescuedData);
                for (int i = 0; i < results.size(); i++) {
                    System.out.println(summary(layers.get(i).name(), results.get(i)));
                }
                return 0;
            }
            Query q = Queries.create(query, run, api, outer, rescuedData, kafka);
            QueryRunner.Result result = QueryRunner.run(q, run);
            System.out.println(summary(q.name(), result));
            return 0;
        }
    }

    /** 1048576, 512k, 64m, 1g (powers of 1024, as Spark's byte strings). */
    static long parseBytes(String text) {
        Matcher m = Pattern.compile("(?i)\\s*(\\d+)\\s*([kmgt]?)b?\\s*").matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "cannot read '"
                            + text
                            + "' as a size: use bytes, or a number with k, m, g or t (e.g. 64m)");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2).toLowerCase(Locale.ROOT);
        int shift = unit.isEmpty() ? 0 : "kmgt".indexOf(unit) + 1;
        return n << (10 * shift);
    }

    static String summary(String query, QueryRunner.Result result) {
        if (result.batches() == 0) {
            return query
                    + ": nothing new (0 rows read, no new batch; next batch id "
                    + result.lastProgress.path("batchId").asLong()
                    + ")";
        }
        return query
                + ": "
                + result.batches()
                + (result.batches() == 1 ? " batch, " : " batches, ")
                + result.numInputRows()
                + " rows read, last batch id "
                + result.lastProgress.path("batchId").asLong();
    }

    @Command(
            name = "table",
            mixinStandardHelpOptions = true,
            description = "Read a table of the warehouse.",
            subcommands = {
                TableCommand.Count.class,
                TableCommand.Show.class,
                TableCommand.Export.class
            })
    static final class TableCommand implements Callable<Integer> {
        @Override
        public Integer call() {
            new CommandLine(this).usage(System.out);
            return 0;
        }

        @Command(name = "count", mixinStandardHelpOptions = true, description = "Number of rows.")
        static final class Count implements Callable<Integer> {
            @Mixin Common common;

            @Parameters(paramLabel = "TABLE")
            String table;

            @Override
            public Integer call() {
                System.out.println(common.tables().count(table));
                return 0;
            }
        }

        @Command(
                name = "show",
                mixinStandardHelpOptions = true,
                description = "The first rows as a grid, like the course's display().")
        static final class Show implements Callable<Integer> {
            @Mixin Common common;

            @Parameters(paramLabel = "TABLE")
            String table;

            @Option(
                    names = "--limit",
                    defaultValue = "20",
                    description = "rows to show (default: ${DEFAULT-VALUE})")
            int limit;

            @Override
            public Integer call() {
                System.out.print(show(common.tables(), table, limit));
                return 0;
            }
        }

        @Command(
                name = "export",
                mixinStandardHelpOptions = true,
                description = "All rows, sorted by every column, with one header line.")
        static final class Export implements Callable<Integer> {
            @Mixin Common common;

            @Parameters(paramLabel = "TABLE")
            String table;

            @Option(
                    names = "--csv",
                    required = true,
                    description = "as CSV (the only format so far)")
            boolean csv;

            @Override
            public Integer call() {
                export(common.tables(), table, System.out);
                return 0;
            }
        }
    }

    static String show(Warehouse warehouse, String table, int limit) {
        return show(new Tables(warehouse, null), table, limit);
    }

    static String show(Tables tables, String table, int limit) {
        List<List<Object>> rows = tables.sortedValues(table);
        long total = rows.size();
        String grid =
                RowValues.grid(
                        tables.columns(table), rows.subList(0, (int) Math.min(limit, total)));
        return grid
                + (total > limit ? "only showing top " + limit + " of " + total + " rows\n" : "");
    }

    static void export(Tables tables, String table, PrintStream out) {
        out.println(String.join(",", tables.columns(table)));
        StringBuilder line = new StringBuilder();
        for (List<Object> row : tables.sortedValues(table)) {
            line.setLength(0);
            for (int i = 0; i < row.size(); i++) {
                if (i > 0) {
                    line.append(',');
                }
                line.append(RowValues.csv(row.get(i)));
            }
            out.println(line);
        }
    }

    @Command(
            name = "progress",
            mixinStandardHelpOptions = true,
            description =
                    "The last progress object of a query (Spark's lastProgress), or its history.")
    static final class ProgressCommand implements Callable<Integer> {
        @Mixin Common common;

        @Parameters(paramLabel = "QUERY")
        String query;

        @Option(
                names = "--all",
                description = "every committed batch, oldest first (Spark's recentProgress, kept)")
        boolean all;

        @Override
        public Integer call() {
            CheckpointLayout checkpoint = CheckpointLayout.of(common.base, query);
            if (all) {
                for (ObjectNode p : ProgressTracker.history(checkpoint)) {
                    System.out.println(p.toString());
                }
                return 0;
            }
            ObjectNode last = ProgressTracker.last(checkpoint);
            if (last == null) {
                throw new IllegalArgumentException(
                        "query '"
                                + query
                                + "' has no progress under "
                                + checkpoint
                                + ": it has not run yet");
            }
            System.out.println(last.toPrettyString());
            return 0;
        }
    }
}
