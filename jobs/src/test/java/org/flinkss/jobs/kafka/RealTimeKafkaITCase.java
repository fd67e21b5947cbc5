package org.flinkss.jobs.kafka;

import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.kafka.EventsToKafka;
import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.Main;
import org.flinkss.jobs.TestDiary;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 36, {@code --trigger real-time}: a {@code sql --file} query from a topic to a topic.
 * Records flow as they arrive, before any checkpoint; a run killed with {@code kill -9} while
 * records flow, then run again, leaves each input record exactly once in the output topic for a
 * {@code read_committed} reader (the sink's transactions commit with the checkpoints).
 */
class RealTimeKafkaITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SEED = Long.getLong("flinkss.killSeed", 36036L);

    @TempDir Path dir;

    @RegisterExtension final TestDiary diary = new TestDiary();

    /** The documented example: events -> events_out at 127.0.0.1:9092. */
    static final Path REAL_TIME_SQL =
            SqlKafkaITCase.KAFKA_WIN5_SQL.resolveSibling("real-time-kafka.sql");

    /**
     * The example {@code examples/sql/real-time-kafka.sql} from topic {@code in} to topic {@code
     * out} on this broker, {@code sinkOptions} in the output table's WITH clause.
     */
    static String topicToTopic(String bootstrap, String in, String out, String sinkOptions)
            throws IOException {
        String sql = Files.readString(REAL_TIME_SQL, StandardCharsets.UTF_8);
        for (String part :
                List.of("'127.0.0.1:9092'", "'topic' = 'events',", "'topic' = 'events_out',")) {
            assertThat(sql).as("the example's " + part).contains(part);
        }
        return sql.replace("'127.0.0.1:9092'", "'" + bootstrap + "'")
                .replace("'topic' = 'events_out',\n", "'topic' = '" + out + "',\n" + sinkOptions)
                .replace("'topic' = 'events',", "'topic' = '" + in + "',");
    }

    private Path sqlFile(String name, String sql) throws IOException {
        Path file = dir.resolve(name + ".sql");
        Files.writeString(file, sql, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * Topics {@code in} and {@code <name>-out}, each with {@code partitions}, and a new folder
     * {@code <name>}: the base of the test's query.
     */
    private Path topicsAndBase(String name, String in, int partitions) throws IOException {
        kafka().createTopic(in, partitions);
        kafka().createTopic(name + "-out", partitions);
        return Files.createDirectories(dir.resolve(name));
    }

    private static KafkaTestBroker kafka() {
        return KAFKA.broker();
    }

    @Test
    void aRecordReachesTheOutputTopicBeforeTheFirstCheckpointCompletes() throws Exception {
        Path base = topicsAndBase("early", "early-in", 2);
        Path file =
                sqlFile(
                        "early",
                        topicToTopic(
                                kafka().bootstrapServers(),
                                "early-in",
                                "early-out",
                                "  'sink.delivery-guarantee' = 'at-least-once',\n"));
        CheckpointLayout checkpoint = checkpoint(base, "early");

        // Step 1: a run with a checkpoint every 10 minutes, reading the topic as records arrive.
        try (ChildJvm child = startRealTime("early", file, base, "--parallelism", "2")) {
            diary.output(child.output());
            // Step 2: the first event, produced while the run starts, reaches the output topic.
            kafka().produceEvents("early-in", 0, 1);
            awaitRecords(child, "early-out", 1);
            diary.note("event 0 in the output topic");

            // Step 3: produced now that the job runs, the next 10 arrive too, and no checkpoint
            // of the run has completed: they did not wait for one.
            kafka().produceEvents("early-in", 1, 10);
            awaitRecords(child, "early-out", 11);
            diary.note("events 1-10 in the output topic");
            assertThat(completedCheckpoints(checkpoint))
                    .as("completed checkpoints (their _metadata) when the records had arrived")
                    .isEmpty();
            assertThat(eventIds(kafka().readUncommitted("early-out")))
                    .containsExactlyInAnyOrderElementsOf(
                            Stream.iterate(0L, i -> i + 1).limit(11).collect(Collectors.toList()));
            // And the sink is at-least-once: a read_committed reader sees them as well.
            assertThat(kafka().readCommitted("early-out")).hasSize(11);
            child.kill9();
        }
    }

    /**
     * A real-time run looks for topics and partitions at each refresh of what is available (every
     * 10 ms): a topic that matches its pattern, and a partition added to a topic it reads, are
     * found while it runs, and their records read from their first.
     */
    @Test
    void aNewTopicAndANewPartitionAreReadWhileTheRunGoesOn() throws Exception {
        Path base = topicsAndBase("found", "found-a", 1);
        String sql =
                topicToTopic(
                        kafka().bootstrapServers(),
                        "found-a",
                        "found-out",
                        "  'sink.delivery-guarantee' = 'at-least-once',\n");
        Path file =
                sqlFile(
                        "found",
                        sql.replace("'topic' = 'found-a',", "'topic-pattern' = 'found-[a-z]',"));
        kafka().produceEvents("found-a", 0, 10);

        // Step 1: a real-time run reads the topic there at its start.
        try (ChildJvm child = startRealTime("found", file, base)) {
            diary.output(child.output());
            awaitRecords(child, "found-out", 10);
            diary.note("the first topic's 10 events in the output topic");

            // Step 2: a topic created while it runs, matching the pattern: its events come out.
            kafka().createTopic("found-b", 1);
            kafka().produceEvents("found-b", 10, 10);
            awaitRecords(child, "found-out", 20);
            diary.note("the new topic's 10 events in the output topic");

            // Step 3: a second partition of the first topic, and events some of which go to it.
            try (Admin admin =
                    Admin.create(
                            Map.of(
                                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                                    kafka().bootstrapServers()))) {
                admin.createPartitions(Map.of("found-a", NewPartitions.increaseTo(2)))
                        .all()
                        .get(1, TimeUnit.MINUTES);
            }
            Map<Integer, Integer> perPartition = kafka().produceEvents("found-a", 20, 40);
            assertThat(perPartition.getOrDefault(1, 0))
                    .as("events in the new partition: %s", perPartition)
                    .isPositive();
            awaitRecords(child, "found-out", 60);

            // Step 4: every event once, none from elsewhere.
            assertThat(eventIds(kafka().readUncommitted("found-out")))
                    .containsExactlyInAnyOrderElementsOf(
                            Stream.iterate(0L, i -> i + 1).limit(60).collect(Collectors.toList()));
            child.kill9();
        }
    }

    @Test
    void killedWhileRecordsFlowEachInputIsInTheOutputOnceForAReadCommittedReader()
            throws Exception {
        Path base = topicsAndBase("killed", "killed-in", 3);
        Path file =
                sqlFile(
                        "killed",
                        topicToTopic(kafka().bootstrapServers(), "killed-in", "killed-out", ""));
        CheckpointLayout checkpoint = checkpoint(base, "killed");

        // Step 1: a producer writes events, 60 every 100 ms, until the second kill: each kill
        // hits a run while records flow.
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicInteger produced = new AtomicInteger();
        AtomicInteger killsSeen = new AtomicInteger();
        Thread producer =
                new Thread(
                        () -> {
                            while (producing.get()) {
                                int start = produced.get();
                                EventsToKafka.write(
                                        kafka().bootstrapServers(),
                                        "killed-in",
                                        Optional.empty(),
                                        Map.of(),
                                        EventGenerator.events(start, 60));
                                produced.addAndGet(60);
                                sleep(100);
                            }
                        },
                        "producer");
        producer.start();

        // Step 2: the query in child JVMs, exactly once, a checkpoint every 500 ms, killed with
        // SIGKILL after a commit twice; the last run goes on for 60 s and stops.
        String[] run = {
            "sql",
            "--file",
            file.toString(),
            "--base",
            base.toString(),
            "--trigger",
            "real-time=500ms",
            "--run-for",
            "60s",
            "--parallelism",
            "2",
            "--quiet"
        };
        try {
            int kills =
                    ChildJvm.runKilledAfterCommits(
                            ChildJvm.of(Main.class)
                                    .workDir(dir.resolve("killed-child"))
                                    .tmpDir(dir.resolve("killed-tmp")),
                            run,
                            checkpoint,
                            2,
                            new Random(SEED),
                            1500,
                            Duration.ofSeconds(180),
                            dir.resolve("logs"),
                            diary.outputs(),
                            diary::note,
                            () -> {
                                String at =
                                        kafka().readUncommitted("killed-out").size()
                                                + " records in the output (read_uncommitted), "
                                                + produced.get()
                                                + " produced";
                                if (killsSeen.incrementAndGet() == 2) {
                                    producing.set(false);
                                }
                                return at;
                            });
            assertThat(kills).as("kills that hit a running process").isEqualTo(2);
            producing.set(false);
            producer.join();
            int events = produced.get();
            diary.note("producer done: " + events + " events");
            // The last run ended after the producer: it read everything (else run it once more).
            if (eventIds(kafka().readCommitted("killed-out")).stream().distinct().count()
                    < events) {
                diary.note("the last run ended before the producer: one more run");
                CliOutput last = CliOutput.of(run);
                assertThat(last.code()).as(last.out() + last.err()).isZero();
            }

            // Step 3: each event once for a read_committed reader.
            List<ConsumerRecord<byte[], byte[]>> committed = kafka().readCommitted("killed-out");
            diary.note(
                    "read_committed: "
                            + committed.size()
                            + " records; read_uncommitted: "
                            + kafka().readUncommitted("killed-out").size()
                            + " (the difference: transactions the kills left open, aborted by the"
                            + " reruns)");
            Map<Long, Long> counts =
                    eventIds(committed).stream()
                            .collect(
                                    Collectors.groupingBy(
                                            id -> id, TreeMap::new, Collectors.counting()));
            Map<Long, Long> twice = new TreeMap<>(counts);
            twice.values().removeIf(n -> n == 1);
            assertThat(twice).as("events written more than once (id -> count)").isEmpty();
            assertThat(counts.keySet())
                    .containsExactlyElementsOf(
                            Stream.iterate(0L, i -> i + 1)
                                    .limit(events)
                                    .collect(Collectors.toList()));
        } finally {
            producing.set(false);
        }
    }

    @Test
    void win5InUpdateModeToAnUpsertKafkaTopicGivesEachWindowsCountsAsTheyGrow() throws Exception {
        Path base = topicsAndBase("win5", "win5-in", 2);
        String bootstrap = kafka().bootstrapServers();
        // win5 in update mode: a regular aggregation by window start (a window TVF aggregation
        // writes a window only when it closes), each change an upsert keyed by window and type.
        Path file =
                sqlFile(
                        "win5-update",
                        "CREATE TEMPORARY TABLE events (event_id BIGINT, user_id INT,"
                                + " event_type STRING, event_ts TIMESTAMP_LTZ(3), amount DOUBLE,"
                                + " WATERMARK FOR event_ts AS event_ts - INTERVAL '10' MINUTE)\n"
                                + "  WITH ('connector' = 'kafka', 'topic' = 'win5-in',"
                                + " 'properties.bootstrap.servers' = '"
                                + bootstrap
                                + "', 'scan.startup.mode' = 'earliest-offset',"
                                + " 'format' = 'json');\n"
                                + "CREATE TEMPORARY TABLE win5_out (window_start TIMESTAMP_LTZ(3),"
                                + " event_type STRING, events BIGINT,"
                                + " PRIMARY KEY (window_start, event_type) NOT ENFORCED)\n"
                                + "  WITH ('connector' = 'upsert-kafka', 'topic' = 'win5-out',"
                                + " 'properties.bootstrap.servers' = '"
                                + bootstrap
                                + "', 'key.format' = 'json', 'value.format' = 'json');\n"
                                + "INSERT INTO win5_out SELECT window_start, event_type,"
                                + " COUNT(*) AS events FROM TABLE(TUMBLE(TABLE events,"
                                + " DESCRIPTOR(event_ts), INTERVAL '5' MINUTE))"
                                + " GROUP BY window_start, event_type;\n");
        kafka().produceEvents("win5-in", 0, 300);

        // Step 1: a real-time run, a checkpoint every 500 ms, for 20 s.
        CliOutput run =
                CliOutput.of(
                        "sql",
                        "--file",
                        file.toString(),
                        "--base",
                        base.toString(),
                        "--trigger",
                        "real-time=500ms",
                        "--run-for",
                        "20s",
                        "--quiet");
        assertThat(run.code()).as(run.out() + run.err()).isZero();

        // Step 2: the last value of each key (read_committed) is the window's count: 300 events
        // 10 s apart are 10 windows of 30, split by type.
        Map<String, Long> last = new TreeMap<>();
        int written = kafka().readUncommitted("win5-out").size();
        for (ConsumerRecord<byte[], byte[]> r :
                kafka().readCommittedOnceVisible("win5-out", written)) {
            String key = new String(r.key(), StandardCharsets.UTF_8);
            if (r.value() == null) {
                last.remove(key);
            } else {
                last.put(key, JSON.readTree(r.value()).path("events").asLong());
            }
        }
        assertThat(last.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(300);
        Map<String, Long> expected = new TreeMap<>();
        EventGenerator.events(0, 300)
                .forEach(e -> expected.merge((e.eventId / 30) + "/" + e.eventType, 1L, Long::sum));
        assertThat(last.values()).containsExactlyInAnyOrderElementsOf(expected.values());
    }

    @Test
    void aCheckpointGoesFromAvailableNowToRealTimeAndBackEachEventOnce() throws Exception {
        Path base = topicsAndBase("switch", "switch-in", 2);
        Path file =
                sqlFile(
                        "switch",
                        topicToTopic(kafka().bootstrapServers(), "switch-in", "switch-out", ""));
        String[] run = {"sql", "--file", file.toString(), "--base", base.toString(), "--quiet"};
        String[] realTime = {
            "sql",
            "--file",
            file.toString(),
            "--base",
            base.toString(),
            "--trigger",
            "real-time=1s",
            "--run-for",
            "20s",
            "--quiet"
        };

        // Step 1: an available-now run reads the first 100 events.
        kafka().produceEvents("switch-in", 0, 100);
        CliOutput.succeeded(run);
        assertThat(eventIds(kafka().readCommittedOnceVisible("switch-out", 100))).hasSize(100);

        // Step 2: the same checkpoint runs in real time and reads the next 100 only.
        kafka().produceEvents("switch-in", 100, 100);
        CliOutput.succeeded(realTime);
        assertThat(eventIds(kafka().readCommittedOnceVisible("switch-out", 200))).hasSize(200);

        // Step 3: back to available-now: the next 100 only; each of the 300 events once.
        kafka().produceEvents("switch-in", 200, 100);
        CliOutput.succeeded(run);
        assertThat(eventIds(kafka().readCommittedOnceVisible("switch-out", 300)))
                .containsExactlyInAnyOrderElementsOf(
                        Stream.iterate(0L, i -> i + 1).limit(300).collect(Collectors.toList()));
    }

    private static CheckpointLayout checkpoint(Path base, String query) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .build()
                .checkpointOf(query);
    }

    /** Waits for {@code n} records in {@code topic} (read_uncommitted) while the child runs. */
    /**
     * {@code sql --file} with {@code --trigger real-time=10min} (no checkpoint while the test runs)
     * in a JVM of its own, its output in {@code <name>.log}.
     */
    private ChildJvm startRealTime(String name, Path file, Path base, String... more) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "sql",
                                "--file",
                                file.toString(),
                                "--base",
                                base.toString(),
                                "--trigger",
                                "real-time=10min"));
        args.addAll(List.of(more));
        return ChildJvm.of(Main.class)
                .workDir(dir.resolve(name + "-child"))
                .tmpDir(dir.resolve(name + "-tmp"))
                .output(dir.resolve(name + ".log"))
                .start(args.toArray(String[]::new));
    }

    private static void awaitRecords(ChildJvm child, String topic, int n)
            throws InterruptedException {
        // The timeout only catches a hang: the assertion that matters is made after it.
        assertThat(
                        child.await(
                                n + " records in " + topic,
                                () -> kafka().readUncommitted(topic).size() >= n,
                                Duration.ofMinutes(3)))
                .as("the run is still running")
                .isTrue();
    }

    /** The {@code _metadata} files under the query's checkpoint: one per completed checkpoint. */
    private static List<Path> completedCheckpoints(CheckpointLayout checkpoint) throws IOException {
        Path root = Path.of(checkpoint.location().toUri());
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.getFileName().toString().equals("_metadata"))
                    .collect(Collectors.toList());
        }
    }

    private static List<Long> eventIds(List<ConsumerRecord<byte[], byte[]>> records) {
        List<Long> ids = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            try {
                ids.add(JSON.readTree(r.value()).path("event_id").asLong());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return ids;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
