package org.flinkss.course.demo;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.DedupQuery;
import org.flinkss.course.queries.LatestQuery;
import org.flinkss.course.queries.Pipeline;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.runtime.time.Watermarks;
import org.flinkss.runtime.trigger.Trigger;

import javax.annotation.Nullable;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The module walkthrough: replays the course's cells topic by topic on an embedded Flink, in a
 * folder of its own, printing what each cell prints and whether it matches what the course expects.
 * Topics run in the course's order; asked for one topic, the demo runs the topics before it quietly
 * (they land the data it needs) and stops after it.
 */
public final class DemoScenario {

    /** One cell compared with the course: its topic, the cell, the value, whether it matches. */
    public record Check(String topic, String cell, String value, boolean matches) {}

    private final DemoSession s;
    private final Map<String, Runnable> topics;

    /**
     * @param base the folder to work in (events, checkpoints, tables): a local folder, as {@code
     *     demo --base} takes, which the demo lists and rewrites with {@code java.nio}
     * @param console where the demo prints, and how runs and tables are shown there
     */
    public DemoScenario(Path base, int parallelism, DemoConsole console) {
        this.s = new DemoSession(base, parallelism, console);
        this.topics = topics(new JoinsAndWindows(s));
    }

    /** The topics, in the course's order: {@code 11.01} to {@code 11.15}. */
    public List<String> topicIds() {
        return List.copyOf(topics.keySet());
    }

    /**
     * Runs every topic, or those up to {@code topic} with only that one shown, and returns the
     * checks shown.
     *
     * @throws IllegalArgumentException for a topic the demo has not, before anything runs
     */
    public List<Check> run(@Nullable String topic) {
        if (topic != null && !topics.containsKey(topic)) {
            throw new IllegalArgumentException(
                    "no topic '"
                            + topic
                            + "' in the demo: the topics are "
                            + String.join(", ", topics.keySet()));
        }
        s.out.println("Working in " + s.base.toAbsolutePath());
        for (Map.Entry<String, Runnable> t : topics.entrySet()) {
            s.loud = topic == null || topic.equals(t.getKey());
            t.getValue().run();
            if (t.getKey().equals(topic)) {
                break;
            }
        }
        return s.checks();
    }

    private Map<String, Runnable> topics(JoinsAndWindows joinsAndWindows) {
        Map<String, Runnable> topics = new LinkedHashMap<>();
        topics.put(
                "11.01",
                () ->
                        s.concept(
                                "11.01",
                                "Batch vs Stream Processing",
                                "Same code, different trigger: every query here runs as incremental"
                                        + " batch (run <query>, available-now) or continuously"
                                        + " (--trigger processing-time=10s)."));
        topics.put(
                "11.02",
                () ->
                        s.concept(
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
        topics.put("11.09", joinsAndWindows::joins);
        topics.put("11.10", joinsAndWindows::windows);
        topics.put("11.11", this::lateData);
        topics.put(
                "11.12",
                () ->
                        s.concept(
                                "11.12",
                                "Kafka and Event Hubs Integration",
                                "Runnable here with a real broker: scripts/kafka start; land-events"
                                        + " --to-kafka; run kafka-bronze --subscribe events; run"
                                        + " kafka-events (docs/kafka.md)."));
        topics.put("11.13", this::exactlyOnce);
        topics.put(
                "11.14",
                () ->
                        s.concept(
                                "11.14",
                                "Streaming Failure Recovery",
                                "A failed or killed run restarts from its last checkpoint: rerun"
                                    + " it. Tests kill runs with SIGKILL and compare every table"
                                    + " with an uninterrupted run. New source fields are skipped by"
                                    + " the explicit schema, or kept in events_bronze._rescued_data"
                                    + " by run bronze --rescued-data (docs/bronze.md, Schema change"
                                    + " in the source)."));
        topics.put("11.15", this::pipeline);
        return topics;
    }

    private void sourcesAndSinks() {
        s.header("11.03", "Sources and Sinks");
        s.land(1, 0);
        s.runBronze();
        s.check(
                "11.03",
                "print(spark.table(\"events_bronze\").count())",
                500L,
                () -> s.warehouse.count(BronzeQuery.TABLE));
    }

    private void microBatches() {
        s.header("11.04", "Micro-Batch Processing");
        s.land(2, 500);
        s.runBronze();
        s.check(
                "11.04",
                "print(p[\"batchId\"], p[\"numInputRows\"])",
                "1 500",
                () ->
                        s.last.lastProgress.path("batchId").asLong()
                                + " "
                                + s.last.lastProgress.path("numInputRows").asLong());
        s.check(
                "11.04",
                "print(spark.table(\"events_bronze\").count())",
                1000L,
                () -> s.warehouse.count(BronzeQuery.TABLE));
    }

    private void checkpointing() {
        s.header("11.06", "Checkpointing");
        s.check(
                "11.06",
                "print(run_bronze())   # after batches 1 and 2",
                1000L,
                () -> {
                    s.runBronze();
                    return s.warehouse.count(BronzeQuery.TABLE);
                });
        s.check(
                "11.06",
                "print(run_bronze())   # nothing new, nothing reprocessed",
                1000L,
                () -> {
                    s.runBronze();
                    return s.warehouse.count(BronzeQuery.TABLE);
                });
        s.check(
                "11.06",
                "numInputRows of the rerun (no new batch id)",
                0L,
                () -> s.last.lastProgress.path("numInputRows").asLong());
    }

    private void triggers() {
        s.header("11.05", "Streaming Triggers");
        RunOptions once =
                RunOptions.builder()
                        .base(Storage.location(s.base.toFile()))
                        .parallelism(s.parallelism)
                        .printProgress(false)
                        .trigger(Trigger.parse("once"))
                        .out(s.loud ? s.out : new PrintStream(OutputStream.nullOutputStream()))
                        .build();
        s.check(
                "11.05",
                "trigger(once=True) on bronze's checkpoint: same checkpoint, nothing new",
                0L,
                () -> QueryRunner.run(new BronzeQuery(once.events()), once).numInputRows());
    }

    private void watermarking() {
        s.header("11.07", "Watermarking");
        QueryRunner.Result win5 = s.runQuery(WindowQuery.win5(Api.DATASTREAM));
        long watermark = DemoSession.watermarkAfter(win5);
        s.check(
                "11.07",
                "watermark = max(event_ts) - 10 minutes",
                "2025-03-01T02:36:30.000Z",
                () -> Watermarks.format(watermark));
        s.check(
                "11.07",
                "windows that end before the watermark are final; the newest stay open",
                true,
                () ->
                        s.warehouse.sortedValues(QueryCatalog.WIN5.table()).stream()
                                        .allMatch(
                                                r ->
                                                        ((Instant) r.get(1)).toEpochMilli()
                                                                <= watermark)
                                && s.warehouse.count(QueryCatalog.WIN5.table()) == 31 * 3);
    }

    private void stateful() {
        s.header("11.08", "Stateful vs Stateless Processing");
        QueryRunner.Result dedup = s.runQuery(DedupQuery.dedup(Api.DATASTREAM));
        s.check(
                "11.08",
                "dropDuplicatesWithinWatermark([\"event_id\"]): every id once",
                1000L,
                () -> s.warehouse.count(QueryCatalog.DEDUP.table()));
        s.check(
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

    private void lateData() {
        s.header("11.11", "Late and Out-of-Order Events");
        Event late = new Event(99999L, 7, "buy", Instant.parse("2025-03-01T00:01:00Z"), 12.5);
        EventFiles.writeBatch(s.options.events(), 3, List.of(late));
        s.land(4, 1000);
        if (s.loud) {
            s.out.println(
                    ">>> the late event (00:01, event_id 99999) as batch 3; land_events(4, 1000)");
        }
        s.runBronze();
        s.check(
                "11.11",
                "run_bronze(): bronze keeps all rows",
                1501L,
                () -> s.warehouse.count(BronzeQuery.TABLE));
        QueryRunner.Result win5 = s.runQuery(WindowQuery.win5(Api.DATASTREAM));
        s.check(
                "11.11",
                "numRowsDroppedByWatermark",
                1L,
                () ->
                        win5.lastProgress
                                .path("stateOperators")
                                .path(0)
                                .path("numRowsDroppedByWatermark")
                                .asLong());
        s.check(
                "11.11",
                "the late event is kept in events_5min_late",
                1L,
                () -> s.warehouse.count(QueryCatalog.WIN5.table() + EventTables.LATE_SUFFIX));
    }

    private void exactlyOnce() {
        s.header("11.13", "Exactly-Once Processing Semantics");
        QueryRunner.Result first = s.runQuery(new LatestQuery());
        s.check(
                "11.13",
                "foreachBatch(upsert) MERGE INTO events_latest: one row per event_id",
                1501L,
                () -> s.warehouse.count(LatestQuery.TABLE));
        s.check(
                "11.13",
                "each batch one Delta commit: operation MERGE with txn(query id, batch id)",
                "MERGE " + first.lastProgress.path("batchId").asLong(),
                () -> {
                    HistoryEntry last = s.warehouse.existing(LatestQuery.TABLE).history(1).get(0);
                    return last.operation() + " " + last.batchId();
                });
        QueryRunner.Result again = s.runQuery(new LatestQuery());
        s.check(
                "11.13",
                "rerun: no new batch, the table unchanged",
                "0 1501",
                () -> again.batches() + " " + s.warehouse.count(LatestQuery.TABLE));
    }

    private void pipeline() {
        s.header("11.15", "End-to-End Streaming Pipelines");
        List<QueryRunner.Result> layers = Pipeline.run(s.options, Api.DATASTREAM);
        if (s.loud) {
            s.out.println(
                    ">>> run pipeline: "
                            + layers.size()
                            + " layers, silver read "
                            + layers.get(1).numInputRows()
                            + " rows, gold read "
                            + layers.get(2).numInputRows());
        }
        // Silver's first run reads all of bronze in one batch, under no watermark yet: as in Spark,
        // nothing is late, the event of 11.11 included.
        s.check(
                "11.15",
                "events_silver: valid, deduplicated (first run: one batch, nothing late)",
                1501L,
                () -> s.warehouse.count(QueryCatalog.SILVER.table()));
        s.check(
                "11.15",
                "events_by_type: 30-minute windows closed by the watermark",
                true,
                () ->
                        s.warehouse.count(QueryCatalog.GOLD.table()) > 0
                                && s.warehouse.sortedValues(QueryCatalog.GOLD.table()).stream()
                                        .allMatch(
                                                r ->
                                                        ((Instant) r.get(1)).toEpochMilli()
                                                                <= DemoSession.watermarkAfter(
                                                                        layers.get(2))));
    }
}
