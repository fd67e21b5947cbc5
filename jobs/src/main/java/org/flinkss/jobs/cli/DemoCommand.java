package org.flinkss.jobs.cli;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.LandEvents;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.DedupQuery;
import org.flinkss.course.queries.EnrichedQuery;
import org.flinkss.course.queries.LatestQuery;
import org.flinkss.course.queries.Pipeline;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.ViewThenBuyQuery;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.course.tables.Customers;
import org.flinkss.course.tables.EventTables;
import org.flinkss.jobs.cli.options.Converters;
import org.flinkss.jobs.cli.options.ParallelismOption;
import org.flinkss.jobs.cli.output.RunSummary;
import org.flinkss.jobs.cli.output.TablePrinter;
import org.flinkss.jobs.cli.output.Tables;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.RowValues;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.time.Watermarks;
import org.flinkss.runtime.trigger.Trigger;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * The module walkthrough: replays the course's cells topic by topic on an embedded Flink, in a
 * fresh folder, printing what each cell prints and whether it matches what the course expects.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description =
                "Replay the course module topic by topic, comparing each result with the course's.")
public final class DemoCommand implements Callable<Integer> {

    @Option(
            names = "--topic",
            paramLabel = "11.NN",
            description = "run one topic (its earlier topics run quietly first)")
    String topic;

    @Option(
            names = "--base",
            paramLabel = "DIR",
            converter = Converters.LocalFolder.class,
            description = "where to work (default: a new folder data/demo-<time>)")
    Path base;

    @Mixin ParallelismOption parallelismOption;
    private int parallelism;

    private final List<String[]> results = new ArrayList<>();
    private boolean loud = true;
    private RunOptions options;
    private Warehouse warehouse;
    private QueryRunner.Result last;

    @Override
    public Integer call() {
        if (base == null) {
            base =
                    Paths.get(
                            "data",
                            "demo-"
                                    + LocalDateTime.now()
                                            .format(
                                                    DateTimeFormatter.ofPattern(
                                                            "yyyyMMdd-HHmmss")));
        }
        parallelism = parallelismOption.orElse(2);
        options =
                RunOptions.builder()
                        .base(base)
                        .parallelism(parallelism)
                        .printProgress(false)
                        .build();
        warehouse = new Warehouse(options.warehouse());
        Map<String, Runnable> topics = topics();
        if (topic != null && !topics.containsKey(topic)) {
            throw new IllegalArgumentException(
                    "no topic '"
                            + topic
                            + "' in the demo: the topics are "
                            + String.join(", ", topics.keySet()));
        }
        System.out.println("Working in " + base.toAbsolutePath());
        long started = System.nanoTime();
        for (Map.Entry<String, Runnable> t : topics.entrySet()) {
            loud = topic == null || topic.equals(t.getKey());
            t.getValue().run();
            if (t.getKey().equals(topic)) {
                break;
            }
        }
        long failed = results.stream().filter(r -> !r[3].equals("matches")).count();
        System.out.println();
        System.out.println(
                "Summary (" + String.format("%.1f", (System.nanoTime() - started) / 1e9) + " s)");
        for (String[] r : results) {
            System.out.printf(
                    "  %-6s %-58s %s%n",
                    r[0], r[1], r[3].equals("matches") ? "ok" : "DIFFERS: " + r[2]);
        }
        System.out.println(
                "  "
                        + (results.size() - failed)
                        + " of "
                        + results.size()
                        + " results match the course.");
        return failed == 0 ? 0 : 1;
    }

    private Map<String, Runnable> topics() {
        Map<String, Runnable> topics = new LinkedHashMap<>();
        topics.put(
                "11.01",
                () ->
                        concept(
                                "11.01",
                                "Batch vs Stream Processing",
                                "Same code, different trigger: every query here runs as incremental"
                                        + " batch (run <query>, available-now) or continuously"
                                        + " (--trigger processing-time=10s)."));
        topics.put(
                "11.02",
                () ->
                        concept(
                                "11.02",
                                "Spark Structured Streaming Architecture",
                                "A query is a Flink graph from sources to sinks; each micro-batch"
                                    + " is planned by the source and committed by a checkpoint in"
                                    + " <base>/_cp/<query>."));
        topics.put("11.03", this::sourcesAndSinks);
        topics.put("11.04", this::microBatches);
        topics.put("11.05", this::triggers);
        topics.put("11.06", this::checkpointing);
        topics.put("11.07", this::watermarking);
        topics.put("11.08", this::stateful);
        topics.put("11.09", this::joins);
        topics.put("11.10", this::windows);
        topics.put("11.11", this::lateData);
        topics.put(
                "11.12",
                () ->
                        concept(
                                "11.12",
                                "Kafka and Event Hubs Integration",
                                "Runnable here with a real broker: scripts/kafka start; land-events"
                                        + " --to-kafka; run kafka-bronze --subscribe events; run"
                                        + " kafka-events (README, Kafka)."));
        topics.put("11.13", this::exactlyOnce);
        topics.put(
                "11.14",
                () ->
                        concept(
                                "11.14",
                                "Streaming Failure Recovery",
                                "A failed or killed run restarts from its last checkpoint: rerun"
                                    + " it. Tests kill runs with SIGKILL and compare every table"
                                    + " with an uninterrupted run. New source fields are skipped by"
                                    + " the explicit schema, or kept in events_bronze._rescued_data"
                                    + " by run bronze --rescued-data (README, Schema change in the"
                                    + " source)."));
        topics.put("11.15", this::pipeline);
        return topics;
    }

    private void sourcesAndSinks() {
        header("11.03", "Sources and Sinks");
        land(1, 0);
        runBronze();
        check(
                "11.03",
                "print(spark.table(\"events_bronze\").count())",
                500L,
                () -> warehouse.count(BronzeQuery.TABLE));
    }

    private void microBatches() {
        header("11.04", "Micro-Batch Processing");
        land(2, 500);
        runBronze();
        check(
                "11.04",
                "print(p[\"batchId\"], p[\"numInputRows\"])",
                "1 500",
                () ->
                        last.lastProgress.path("batchId").asLong()
                                + " "
                                + last.lastProgress.path("numInputRows").asLong());
        check(
                "11.04",
                "print(spark.table(\"events_bronze\").count())",
                1000L,
                () -> warehouse.count(BronzeQuery.TABLE));
    }

    private void checkpointing() {
        header("11.06", "Checkpointing");
        check(
                "11.06",
                "print(run_bronze())   # after batches 1 and 2",
                1000L,
                () -> {
                    runBronze();
                    return warehouse.count(BronzeQuery.TABLE);
                });
        check(
                "11.06",
                "print(run_bronze())   # nothing new, nothing reprocessed",
                1000L,
                () -> {
                    runBronze();
                    return warehouse.count(BronzeQuery.TABLE);
                });
        check(
                "11.06",
                "numInputRows of the rerun (no new batch id)",
                0L,
                () -> last.lastProgress.path("numInputRows").asLong());
    }

    private void triggers() {
        header("11.05", "Streaming Triggers");
        RunOptions once =
                RunOptions.builder()
                        .base(base)
                        .parallelism(parallelism)
                        .printProgress(false)
                        .trigger(Trigger.parse("once"))
                        .out(loud ? System.out : new PrintStream(OutputStream.nullOutputStream()))
                        .build();
        check(
                "11.05",
                "trigger(once=True) on bronze's checkpoint: same checkpoint, nothing new",
                0L,
                () -> QueryRunner.run(new BronzeQuery(once.events()), once).numInputRows());
    }

    private QueryRunner.Result runQuery(Query query) {
        QueryRunner.Result result = QueryRunner.run(query, options);
        if (loud) {
            System.out.println(
                    ">>> run "
                            + query.name()
                            + " (availableNow): "
                            + RunSummary.of(query.name(), result));
        }
        return result;
    }

    private static long watermarkAfter(QueryRunner.Result result) {
        return result.lastProgress.path("sources").path(0).path("watermarkAfter").asLong();
    }

    private void watermarking() {
        header("11.07", "Watermarking");
        QueryRunner.Result win5 = runQuery(WindowQuery.win5(Api.DATASTREAM));
        long watermark = watermarkAfter(win5);
        check(
                "11.07",
                "watermark = max(event_ts) - 10 minutes",
                "2025-03-01T02:36:30.000Z",
                () -> Watermarks.format(watermark));
        check(
                "11.07",
                "windows that end before the watermark are final; the newest stay open",
                true,
                () ->
                        warehouse.sortedValues(QueryCatalog.WIN5.table()).stream()
                                        .allMatch(
                                                r ->
                                                        ((Instant) r.get(1)).toEpochMilli()
                                                                <= watermark)
                                && warehouse.count(QueryCatalog.WIN5.table()) == 31 * 3);
    }

    private void stateful() {
        header("11.08", "Stateful vs Stateless Processing");
        QueryRunner.Result dedup = runQuery(DedupQuery.dedup(Api.DATASTREAM));
        check(
                "11.08",
                "dropDuplicatesWithinWatermark([\"event_id\"]): every id once",
                1000L,
                () -> warehouse.count(QueryCatalog.DEDUP.table()));
        check(
                "11.08",
                "stateOperators[0].numRowsTotal is bounded (keys within the watermark)",
                true,
                () ->
                        dedup.lastProgress
                                        .path("stateOperators")
                                        .path(0)
                                        .path("numRowsTotal")
                                        .asLong()
                                < 200);
    }

    private void joins() {
        header("11.09", "Streaming Joins");
        Customers.land(warehouse, List.of("US", "DE", "FR", "IN", "BR"));
        if (loud) {
            System.out.println(">>> customers = spark.table(\"customers\")   # 50 customers");
        }
        runQuery(new EnrichedQuery(options.warehouse(), Api.DATASTREAM));
        check(
                "11.09",
                "stream-static left join: every event with its country",
                1000L,
                () ->
                        warehouse.sortedValues(QueryCatalog.ENRICHED.table()).stream()
                                .filter(r -> r.get(5) != null)
                                .count());
        runQuery(new ViewThenBuyQuery(false, Api.DATASTREAM));
        check(
                "11.09",
                "view_then_buy: each buy within 5 minutes after a view of the same user",
                true,
                this::viewThenBuyHolds);
        if (loud) {
            System.out.println(
                    "    view_then_buy has "
                            + warehouse.count(QueryCatalog.VIEW_THEN_BUY.table())
                            + " rows");
        }
    }

    private boolean viewThenBuyHolds() {
        Map<Long, List<Object>> bronze = new HashMap<>();
        for (List<Object> row : warehouse.sortedValues(BronzeQuery.TABLE)) {
            bronze.put((Long) row.get(0), row);
        }
        List<List<Object>> pairs = warehouse.sortedValues(QueryCatalog.VIEW_THEN_BUY.table());
        return !pairs.isEmpty()
                && pairs.stream()
                        .allMatch(
                                p -> {
                                    List<Object> v = bronze.get((Long) p.get(1));
                                    List<Object> b = bronze.get((Long) p.get(2));
                                    long vt = ((Instant) v.get(3)).toEpochMilli();
                                    long bt = ((Instant) b.get(3)).toEpochMilli();
                                    return "view".equals(v.get(2))
                                            && "buy".equals(b.get(2))
                                            && v.get(1).equals(p.get(0))
                                            && b.get(1).equals(p.get(0))
                                            && bt >= vt
                                            && bt <= vt + 5 * 60_000;
                                });
    }

    private void windows() {
        header("11.10", "Windowed Aggregations");
        if (loud) {
            System.out.println(
                    ">>> display(spark.table(\"events_5min\").orderBy(\"window\").limit(10))");
            System.out.print(
                    TablePrinter.show(new Tables(warehouse, null), QueryCatalog.WIN5.table(), 10));
        }
        runQuery(WindowQuery.sliding(Api.DATASTREAM));
        runQuery(WindowQuery.sessions(Api.DATASTREAM));
        check(
                "11.10",
                "each sliding window = the two 5-minute windows it spans",
                true,
                this::slidingMatchesTumbling);
        check(
                "11.10",
                "sessions last >= 2 minutes and never touch another of the same user",
                true,
                this::sessionsAreApart);
        outputModes();
    }

    /**
     * "Update mode writes partial results; use foreachBatch + MERGE for it": win5 again, in update
     * mode (into the SQL database) and in complete mode, beside the append table, in a folder of
     * their own so that each keeps its checkpoint.
     */
    private void outputModes() {
        Path modes = base.resolve("output-modes");
        RunOptions append =
                RunOptions.builder()
                        .base(modes)
                        .parallelism(parallelism)
                        .printProgress(false)
                        .build();
        QueryRunner.run(new BronzeQuery(options.events()), append);
        RunOptions update =
                RunOptions.builder()
                        .base(modes)
                        .parallelism(parallelism)
                        .printProgress(false)
                        .outputMode(OutputMode.UPDATE)
                        .build();
        RunOptions complete =
                RunOptions.builder()
                        .base(modes.resolve("complete"))
                        .warehouse(append.warehouse())
                        .parallelism(parallelism)
                        .printProgress(false)
                        .outputMode(OutputMode.COMPLETE)
                        .build();
        QueryRunner.run(QueryCatalog.WIN5.create(update, Api.DATASTREAM), update);
        QueryRunner.run(QueryCatalog.SLIDING.create(complete, Api.DATASTREAM), complete);
        List<List<Object>> closed = warehouse.sortedValues(QueryCatalog.WIN5.table());
        List<List<Object>> updated;
        try {
            updated = update.database().rows(QueryCatalog.WIN5.table());
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "reading the update-mode table failed: " + e.getMessage(), e);
        }
        if (loud) {
            System.out.println(
                    ">>> win5 with outputMode(\"update\") through foreachBatch + MERGE ("
                            + update.database().describe()
                            + ")");
            System.out.print(
                    RowValues.grid(
                            List.of("window_start", "window_end", "event_type", "events", "amount"),
                            updated.subList(Math.max(0, updated.size() - 6), updated.size())));
        }
        check(
                "11.10",
                "update mode: append's closed windows, plus the open ones, partial",
                true,
                () -> updated.containsAll(closed) && updated.size() > closed.size());
        check(
                "11.10",
                "complete mode: every sliding window, the table replaced at each commit",
                true,
                () ->
                        new Warehouse(append.warehouse()).count(QueryCatalog.SLIDING.table())
                                > warehouse.count(QueryCatalog.SLIDING.table()));
    }

    private boolean slidingMatchesTumbling() {
        Map<String, Long> tumbling = new HashMap<>();
        for (List<Object> r : warehouse.sortedValues(QueryCatalog.WIN5.table())) {
            tumbling.put(r.get(0) + "/" + r.get(2), (Long) r.get(3));
        }
        int compared = 0;
        for (List<Object> r : warehouse.sortedValues(QueryCatalog.SLIDING.table())) {
            Instant start = (Instant) r.get(0);
            Long first = tumbling.get(start + "/" + r.get(2));
            Long second = tumbling.get(start.plusSeconds(300) + "/" + r.get(2));
            if (first != null && second != null) {
                compared++;
                if (first + second != (Long) r.get(3)) {
                    return false;
                }
            }
        }
        return compared > 50;
    }

    private boolean sessionsAreApart() {
        List<List<Object>> sessions =
                new ArrayList<>(warehouse.sortedValues(QueryCatalog.SESSIONS.table()));
        sessions.sort(
                Comparator.<List<Object>, Integer>comparing(r -> (Integer) r.get(2))
                        .thenComparing(r -> (Instant) r.get(0)));
        for (int i = 0; i < sessions.size(); i++) {
            List<Object> r = sessions.get(i);
            if (((Instant) r.get(1)).toEpochMilli() - ((Instant) r.get(0)).toEpochMilli()
                    < 120_000) {
                return false;
            }
            if (i > 0
                    && sessions.get(i - 1).get(2).equals(r.get(2))
                    && !((Instant) r.get(0)).isAfter((Instant) sessions.get(i - 1).get(1))) {
                return false;
            }
        }
        return !sessions.isEmpty();
    }

    private void lateData() {
        header("11.11", "Late and Out-of-Order Events");
        Event late = new Event(99999L, 7, "buy", Instant.parse("2025-03-01T00:01:00Z"), 12.5);
        EventFiles.writeBatch(options.events(), 3, List.of(late));
        land(4, 1000);
        if (loud) {
            System.out.println(
                    ">>> the late event (00:01, event_id 99999) as batch 3; land_events(4, 1000)");
        }
        runBronze();
        check(
                "11.11",
                "run_bronze(): bronze keeps all rows",
                1501L,
                () -> warehouse.count(BronzeQuery.TABLE));
        QueryRunner.Result win5 = runQuery(WindowQuery.win5(Api.DATASTREAM));
        check(
                "11.11",
                "numRowsDroppedByWatermark",
                1L,
                () ->
                        win5.lastProgress
                                .path("stateOperators")
                                .path(0)
                                .path("numRowsDroppedByWatermark")
                                .asLong());
        check(
                "11.11",
                "the late event is kept in events_5min_late",
                1L,
                () -> warehouse.count(QueryCatalog.WIN5.table() + EventTables.LATE_SUFFIX));
    }

    private void exactlyOnce() {
        header("11.13", "Exactly-Once Processing Semantics");
        QueryRunner.Result first = runQuery(new LatestQuery(options.database()));
        check(
                "11.13",
                "foreachBatch(upsert) MERGE INTO events_latest: one row per event_id",
                1501L,
                () -> call(() -> options.database().count(LatestQuery.TABLE)));
        QueryRunner.Result again = runQuery(new LatestQuery(options.database()));
        check(
                "11.13",
                "rerun: no new batch, the table unchanged",
                "0 1501",
                () ->
                        again.batches()
                                + " "
                                + call(() -> options.database().count(LatestQuery.TABLE)));
        if (loud) {
            System.out.println(
                    "    batch "
                            + first.lastProgress.path("batchId").asLong()
                            + " recorded in _flinkss_batches with the query id");
        }
    }

    private interface Sql<T> {
        T get() throws Exception;
    }

    private static <T> T call(Sql<T> sql) {
        try {
            return sql.get();
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private void pipeline() {
        header("11.15", "End-to-End Streaming Pipelines");
        List<QueryRunner.Result> layers = Pipeline.run(options, Api.DATASTREAM);
        if (loud) {
            System.out.println(
                    ">>> run pipeline: "
                            + layers.size()
                            + " layers, silver read "
                            + layers.get(1).numInputRows()
                            + " rows, gold read "
                            + layers.get(2).numInputRows());
        }
        // Silver's first run reads all of bronze in one batch, under no watermark yet: as in Spark,
        // nothing is late, the event of 11.11 included.
        check(
                "11.15",
                "events_silver: valid, deduplicated (first run: one batch, nothing late)",
                1501L,
                () -> warehouse.count(QueryCatalog.SILVER.table()));
        check(
                "11.15",
                "events_by_type: 30-minute windows closed by the watermark",
                true,
                () ->
                        warehouse.count(QueryCatalog.GOLD.table()) > 0
                                && warehouse.sortedValues(QueryCatalog.GOLD.table()).stream()
                                        .allMatch(
                                                r ->
                                                        ((Instant) r.get(1)).toEpochMilli()
                                                                <= watermarkAfter(layers.get(2))));
    }

    private void concept(String id, String title, String how) {
        header(id, title + " (concept)");
        if (loud) {
            System.out.println("    " + how);
        }
    }

    private void header(String id, String title) {
        if (loud) {
            System.out.println();
            System.out.println("== " + id + " " + title + " ==");
        }
    }

    private void land(int batch, long start) {
        LandEvents.withDataStream(
                StreamExecutionEnvironment.getExecutionEnvironment(),
                options.events(),
                batch,
                start,
                500);
        if (loud) {
            System.out.println(">>> land_events(" + batch + ", " + start + ")");
        }
    }

    private void runBronze() {
        last = QueryRunner.run(new BronzeQuery(options.events()), options);
        if (loud) {
            System.out.println(
                    ">>> run bronze (availableNow): " + RunSummary.of(BronzeQuery.NAME, last));
        }
    }

    private void check(String id, String cell, Object expected, Supplier<Object> actual) {
        Object value = actual.get();
        boolean match = Objects.equals(String.valueOf(expected), String.valueOf(value));
        if (loud) {
            System.out.println(">>> " + cell);
            System.out.println(value);
            System.out.println("    course: " + expected + (match ? "  (matches)" : "  (DIFFERS)"));
            results.add(
                    new String[] {id, cell, String.valueOf(value), match ? "matches" : "differs"});
        }
    }
}
