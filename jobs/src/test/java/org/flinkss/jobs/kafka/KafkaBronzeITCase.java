package org.flinkss.jobs.kafka;

import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.queries.KafkaBronzeQuery;
import org.flinkss.course.queries.KafkaEventsQuery;
import org.flinkss.course.tables.EventTables;
import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.jobs.Main;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.source.kafka.KafkaTables;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Course topic 11.12 against a real broker in this JVM: availableNow runs of {@code kafka-bronze}
 * over a 3-partition topic, the offsets they commit, parsing with {@code kafka-events}, and the
 * three ways to choose partitions.
 */
class KafkaBronzeITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    @TempDir Path base;

    private static KafkaTestBroker kafka() {
        return KAFKA.broker();
    }

    private static RunOptions options(Path base) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .build();
    }

    private static KafkaSourceOptions.Builder source() {
        return KafkaSourceOptions.builder()
                .bootstrapServers(kafka().bootstrapServers())
                .startingOffsets("earliest");
    }

    @Test
    void twoRoundsOfFiveHundredCountFiveHundredThenAThousandAndARerunReadsNothing()
            throws Exception {
        RunOptions options = options(base);
        Warehouse warehouse = new Warehouse(options.warehouse());
        KafkaBronzeQuery bronze = new KafkaBronzeQuery(source().subscribe("events").build());
        kafka().createTopic("events", 3);

        // Step 1: the first 500 events into the topic; one run reads them all in batch 0, from
        // offset 0 of every partition.
        Map<Integer, Integer> round1 = kafka().produceEvents("events", 0, 500);
        Map<String, Long> endOfRound1 = offsets(round1, Map.of());
        QueryRunner.Result first = QueryRunner.run(bronze, options);
        assertThat(warehouse.count(KafkaBronzeQuery.TABLE)).isEqualTo(500);
        assertThat(first.lastProgress.path("batchId").asLong()).isEqualTo(0);
        assertThat(first.lastProgress.path("numInputRows").asLong()).isEqualTo(500);
        JsonNode source1 = first.lastProgress.path("sources").path(0);
        assertThat(source1.path("description").asText()).isEqualTo("KafkaV2[Subscribe[events]]");
        assertThat(partitionOffsets(source1.path("startOffset")))
                .isEqualTo(Map.of("0", 0L, "1", 0L, "2", 0L));
        assertThat(partitionOffsets(source1.path("endOffset"))).isEqualTo(endOfRound1);

        // Step 2: 500 more; the next run reads only them, from where the first one ended. Its dry
        // run (issue 35, point 5) names those offsets first, partition by partition, and reads
        // nothing.
        Map<Integer, Integer> round2 = kafka().produceEvents("events", 500, 500);
        Map<String, Long> endOfRound2 = offsets(round2, endOfRound1);
        String preflight = String.join("\n", QueryRunner.dryRun(bronze, options).lines());
        for (String partition : List.of("0", "1", "2")) {
            assertThat(preflight)
                    .contains(
                            "topic events partition "
                                    + partition
                                    + " offsets ["
                                    + endOfRound1.get(partition)
                                    + ", "
                                    + endOfRound2.get(partition)
                                    + ")");
        }
        assertThat(warehouse.count(KafkaBronzeQuery.TABLE)).isEqualTo(500);
        QueryRunner.Result second = QueryRunner.run(bronze, options);
        assertThat(warehouse.count(KafkaBronzeQuery.TABLE)).isEqualTo(1000);
        assertThat(second.lastProgress.path("batchId").asLong()).isEqualTo(1);
        assertThat(second.lastProgress.path("numInputRows").asLong()).isEqualTo(500);
        JsonNode source2 = second.lastProgress.path("sources").path(0);
        assertThat(partitionOffsets(source2.path("startOffset"))).isEqualTo(endOfRound1);
        assertThat(partitionOffsets(source2.path("endOffset"))).isEqualTo(endOfRound2);

        // Step 3: nothing new: 0 rows, no new batch id, the table unchanged, every event once.
        QueryRunner.Result third = QueryRunner.run(bronze, options);
        assertThat(third.batches()).isZero();
        assertThat(third.lastProgress.path("numInputRows").asLong()).isZero();
        assertThat(third.lastProgress.path("batchId").asLong()).isEqualTo(2);
        assertThat(ProgressTracker.history(options.checkpointOf(KafkaBronzeQuery.NAME)))
                .extracting(p -> p.path("batchId").asLong())
                .containsExactly(0L, 1L);
        assertThat(eventIds(warehouse))
                .containsExactlyElementsOf(
                        LongStream.range(0, 1000).boxed().collect(Collectors.toList()));

        // Step 4: the raw record is kept as Kafka had it: key = event_id, value = the JSON line.
        RowData any = warehouse.rows(KafkaBronzeQuery.TABLE).get(0);
        Event event =
                EventJson.parse(
                        new String(any.getBinary(KafkaTables.VALUE), StandardCharsets.UTF_8));
        assertThat(new String(any.getBinary(0), StandardCharsets.UTF_8))
                .isEqualTo(Long.toString(event.eventId));
        assertThat(event).isEqualTo(EventGenerator.event(event.eventId));
        assertThat(any.getString(KafkaTables.TOPIC).toString()).isEqualTo("events");
    }

    @Test
    void maxOffsetsPerTriggerOfTheRunSplitsABacklogIntoBatchesOfAtMostThatMany() throws Exception {
        // The Kafka limit travels as every rate limit does: the run's options, not the source's.
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .maxOffsetsPerTrigger(100)
                        .build();
        kafka().createTopic("paced", 3);
        kafka().produceEvents("paced", 0, 300);

        QueryRunner.Result run =
                QueryRunner.run(new KafkaBronzeQuery(source().subscribe("paced").build()), options);

        assertThat(run.numInputRows()).isEqualTo(300);
        assertThat(run.batches()).isGreaterThanOrEqualTo(3);
        // Split pro rata over 3 partitions, a share rounded up to move every partition.
        assertThat(run.progress)
                .allSatisfy(p -> assertThat(p.path("numInputRows").asLong()).isBetween(1L, 103L));
    }

    @Test
    void kafkaEventsParsesTheValuesOfBronzeAndQuarantinesTheRest() throws Exception {
        RunOptions options = options(base);
        Warehouse warehouse = new Warehouse(options.warehouse());
        kafka().createTopic("events-to-parse", 3);

        // Step 1: 100 events, a value that is not JSON, and one that is not even UTF-8, all landed
        // raw by kafka-bronze.
        kafka().produceEvents("events-to-parse", 0, 100);
        kafka().produce("events-to-parse", "x", "not json".getBytes(StandardCharsets.UTF_8));
        kafka().produce("events-to-parse", "y", new byte[] {(byte) 0xC3, (byte) 0x28});
        QueryRunner.run(
                new KafkaBronzeQuery(source().subscribe("events-to-parse").build()), options);
        assertThat(warehouse.count(KafkaBronzeQuery.TABLE)).isEqualTo(102);

        // Step 2: kafka-events reads bronze as a stream: 100 events and, as Spark's from_json
        // gives them (issue 37), 2 rows of nulls; 2 rows in quarantine saying where and why.
        QueryRunner.Result parsed = QueryRunner.run(new KafkaEventsQuery(), options);
        assertThat(parsed.numInputRows()).isEqualTo(102);
        List<Event> events = new ArrayList<>();
        warehouse.rows(KafkaEventsQuery.TABLE).forEach(row -> events.add(EventTables.fromRow(row)));
        List<Event> expected = new ArrayList<>(EventGenerator.events(0, 100));
        expected.add(new Event());
        expected.add(new Event());
        assertThat(events).containsExactlyInAnyOrderElementsOf(expected);
        List<List<Object>> bad = warehouse.sortedValues(KafkaEventsQuery.QUARANTINE);
        assertThat(bad).hasSize(2);
        assertThat(bad)
                .allSatisfy(
                        row -> {
                            assertThat(row.get(0)).isEqualTo("events-to-parse");
                            assertThat((Integer) row.get(1)).isBetween(0, 2);
                            assertThat((Long) row.get(2)).isNotNegative();
                        });
        assertThat(bad)
                .extracting(row -> row.get(4))
                .anySatisfy(reason -> assertThat((String) reason).startsWith("not JSON"))
                .anySatisfy(
                        reason -> assertThat((String) reason).isEqualTo("value is not UTF-8 text"));

        // Step 3: a rerun of kafka-events finds nothing new.
        assertThat(QueryRunner.run(new KafkaEventsQuery(), options).batches()).isZero();
        assertThat(warehouse.count(KafkaEventsQuery.TABLE)).isEqualTo(102);
    }

    @Test
    void subscribeSubscribePatternAndAssignEachReadTheirPartitions() throws Exception {
        kafka().createTopic("alpha", 2);
        kafka().createTopic("beta", 1);
        Map<Integer, Integer> alpha = kafka().produceEvents("alpha", 0, 100);
        kafka().produceEvents("beta", 100, 50);

        // subscribe: one topic, both partitions.
        RunOptions subscribe = options(base.resolve("subscribe"));
        QueryRunner.run(new KafkaBronzeQuery(source().subscribe("alpha").build()), subscribe);
        assertThat(topicCounts(subscribe)).isEqualTo(Map.of("alpha", 100L));

        // subscribePattern: every topic in whose name the pattern is found.
        RunOptions pattern = options(base.resolve("pattern"));
        QueryRunner.run(
                new KafkaBronzeQuery(source().subscribePattern("alph.|beta").build()), pattern);
        assertThat(topicCounts(pattern)).isEqualTo(Map.of("alpha", 100L, "beta", 50L));

        // Spark 3.4 and later find the pattern anywhere in a topic's name: "lph" reads alpha.
        RunOptions found = options(base.resolve("found"));
        QueryRunner.run(new KafkaBronzeQuery(source().subscribePattern("lph").build()), found);
        assertThat(topicCounts(found)).isEqualTo(Map.of("alpha", 100L));

        // assign: one partition, from offset 5 (Spark's per-partition startingOffsets).
        RunOptions assign = options(base.resolve("assign"));
        QueryRunner.Result assigned =
                QueryRunner.run(
                        new KafkaBronzeQuery(
                                KafkaSourceOptions.builder()
                                        .bootstrapServers(kafka().bootstrapServers())
                                        .assign("{\"alpha\":[0]}")
                                        .startingOffsets("{\"alpha\":{\"0\":5}}")
                                        .build()),
                        assign);
        assertThat(topicCounts(assign)).isEqualTo(Map.of("alpha", (long) alpha.get(0) - 5));
        assertThat(
                        partitionOffsets(
                                assigned.lastProgress.path("sources").path(0).path("startOffset"),
                                "alpha"))
                .isEqualTo(Map.of("0", 5L));
        assertThat(new Warehouse(assign.warehouse()).sortedValues(KafkaBronzeQuery.TABLE))
                .allSatisfy(row -> assertThat((Long) row.get(4)).isGreaterThanOrEqualTo(5));

        // latest: the first run reads nothing but pins where it started; what comes after is read
        // by the next run.
        RunOptions latest = options(base.resolve("latest"));
        KafkaBronzeQuery fromLatest =
                new KafkaBronzeQuery(source().subscribe("beta").startingOffsets("latest").build());
        assertThat(QueryRunner.run(fromLatest, latest).numInputRows()).isZero();
        kafka().produceEvents("beta", 150, 10);
        assertThat(QueryRunner.run(fromLatest, latest).numInputRows()).isEqualTo(10);
        assertThat(topicCounts(latest)).isEqualTo(Map.of("beta", 10L));

        // Another topic on the same checkpoint is another query (Spark's rule): refused, naming
        // both.
        assertThatThrownBy(
                        () ->
                                QueryRunner.run(
                                        new KafkaBronzeQuery(source().subscribe("beta").build()),
                                        subscribe))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("KafkaV2[Subscribe[alpha]]")
                .hasMessageContaining("KafkaV2[Subscribe[beta]]");
    }

    @Test
    void aBadCombinationOfOptionsIsRefusedBeforeAnyDataMoves() {
        String servers = kafka().bootstrapServers();
        String[][] refused = {
            {"--subscribe", "alpha", "--assign", "{\"alpha\":[0]}"},
            {"--subscribe", "alpha", "--subscribe-pattern", "al.*"},
            {"--starting-offsets", "earliest"},
            {"--subscribe", "alpha", "--starting-offsets", "{\"beta\":{\"0\":0}}"},
            {"--assign", "[0, 1]"},
        };
        String[] reasons = {
            "exactly one of subscribe",
            "got subscribe (--subscribe) and subscribePattern",
            "none was given",
            "names topic 'beta'",
            "assign must be a JSON object"
        };
        for (int i = 0; i < refused.length; i++) {
            List<String> args =
                    new ArrayList<>(
                            List.of(
                                    "run",
                                    KafkaBronzeQuery.NAME,
                                    "--base",
                                    base.toString(),
                                    "--bootstrap-servers",
                                    servers));
            args.addAll(List.of(refused[i]));
            String err = runMain(args);
            assertThat(err)
                    .as("refusal of %s", List.of(refused[i]))
                    .startsWith("error: ")
                    .contains(
                            reasons[i].equals("exactly one of subscribe")
                                    ? "got subscribe (--subscribe) and assign (--assign)"
                                    : reasons[i]);
        }
        assertThat(Files.exists(base.resolve("_cp"))).as("a checkpoint directory").isFalse();
        assertThat(Files.exists(base.resolve("warehouse"))).as("a warehouse").isFalse();
    }

    /**
     * Runs the command line in this JVM, expects exit code 1, and returns what it printed on
     * stderr.
     */
    private static String runMain(List<String> args) {
        PrintStream original = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Main.execute(args.toArray(new String[0]));
        } finally {
            System.setErr(original);
        }
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as("exit code of %s; stderr: %s", args, text).isEqualTo(1);
        return text;
    }

    /**
     * Expected end offsets per partition: the records produced in a round added to the offsets
     * before it.
     */
    private static Map<String, Long> offsets(
            Map<Integer, Integer> produced, Map<String, Long> before) {
        Map<String, Long> end = new LinkedHashMap<>();
        for (int p = 0; p < 3; p++) {
            end.put(
                    Integer.toString(p),
                    before.getOrDefault(Integer.toString(p), 0L) + produced.getOrDefault(p, 0));
        }
        return end;
    }

    private static Map<String, Long> partitionOffsets(JsonNode offsets) {
        return partitionOffsets(offsets, "events");
    }

    private static Map<String, Long> partitionOffsets(JsonNode offsets, String topic) {
        assertThat(offsets.isObject()).as("offsets %s", offsets).isTrue();
        Map<String, Long> map = new LinkedHashMap<>();
        offsets.path(topic)
                .fields()
                .forEachRemaining(e -> map.put(e.getKey(), e.getValue().asLong()));
        return map;
    }

    private static List<Long> eventIds(Warehouse warehouse) {
        return warehouse.rows(KafkaBronzeQuery.TABLE).stream()
                .map(
                        row ->
                                EventJson.parse(
                                                new String(
                                                        row.getBinary(KafkaTables.VALUE),
                                                        StandardCharsets.UTF_8))
                                        .eventId)
                .sorted()
                .collect(Collectors.toList());
    }

    private static Map<String, Long> topicCounts(RunOptions options) {
        return new Warehouse(options.warehouse())
                .rows(KafkaBronzeQuery.TABLE).stream()
                        .collect(
                                Collectors.groupingBy(
                                        row -> row.getString(KafkaTables.TOPIC).toString(),
                                        Collectors.counting()));
    }
}
