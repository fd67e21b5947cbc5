package org.flinkss.jobs.kafka;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.BronzeToKafkaQuery;
import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.jobs.Main;
import org.flinkss.jobs.TestDiary;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly-once into Kafka with real processes: {@code bronze-to-kafka} in its own JVM, killed with
 * {@code kill -9} after it has committed a batch, and rerun until it finishes; a {@code
 * read_committed} consumer then sees every event of {@code events_bronze} exactly once. The kill
 * moments come from a seeded {@link Random} ({@code -Dflinkss.killSeed=N} replays one).
 */
class BronzeToKafkaKillRecoveryITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final int FILES = 20;
    private static final int EVENTS_PER_FILE = 500;
    private static final int EVENTS = FILES * EVENTS_PER_FILE;
    private static final int KILLS = 2;
    private static final int MAX_EXTRA_MILLIS = 1500;
    private static final long SEED = Long.getLong("flinkss.killSeed", 20250312L);
    private static final String TOPIC = "bronze-out";

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    @TempDir Path dir;

    @RegisterExtension final TestDiary diary = new TestDiary();

    private static KafkaTestBroker kafka() {
        return KAFKA.broker();
    }

    @Test
    void killedRunsRerunAndAReadCommittedConsumerSeesEveryEventExactlyOnce() throws Exception {
        scenario();
    }

    private void scenario() throws Exception {
        // Two part files at most per batch and a commit every 300 ms: several batches to kill in.
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(dir.resolve("base").toFile()))
                        .parallelism(2)
                        .maxFilesPerTrigger(2)
                        .checkpointInterval(Duration.ofMillis(300))
                        .printProgress(false)
                        .build();
        CheckpointLayout checkpoint = options.checkpointOf(BronzeToKafkaQuery.NAME);
        Random random = new Random(SEED);
        diary.note("kill schedule seed " + SEED);

        // Step 1: events_bronze with 10000 events in many part files (bronze in batches of 2
        // files).
        for (int file = 0; file < FILES; file++) {
            EventFiles.writeBatch(
                    options.events(),
                    file + 1,
                    EventGenerator.events((long) file * EVENTS_PER_FILE, EVENTS_PER_FILE));
        }
        QueryRunner.Result bronze = QueryRunner.run(new BronzeQuery(options.events()), options);
        diary.note("bronze: " + bronze.batches() + " batches, " + bronze.numInputRows() + " rows");
        kafka().createTopic(TOPIC, 3);

        // Expected: every event once, as its JSON line, keyed by its id.
        Map<String, String> expected = new TreeMap<>();
        EventGenerator.events(0, EVENTS)
                .forEach(e -> expected.put(Long.toString(e.eventId), EventJson.toJson(e)));

        // Step 2: bronze-to-kafka in a child JVM, killed with SIGKILL after a committed batch,
        // KILLS times; then it must finish.
        String[] run = {
            "run",
            BronzeToKafkaQuery.NAME,
            "--base",
            options.base().toString(),
            "--bootstrap-servers",
            kafka().bootstrapServers(),
            "--topic",
            TOPIC,
            "--max-files-per-trigger",
            "2",
            "--parallelism",
            "2",
            "--checkpoint-interval",
            "300ms",
            "--quiet"
        };
        ChildJvm.Launcher launcher =
                ChildJvm.of(Main.class)
                        .workDir(dir.resolve("child"))
                        .tmpDir(dir.resolve("child-tmp"));
        int kills =
                ChildJvm.runKilledAfterCommits(
                        launcher,
                        run,
                        checkpoint,
                        KILLS,
                        random,
                        MAX_EXTRA_MILLIS,
                        Duration.ofSeconds(120),
                        dir.resolve("logs"),
                        diary.outputs(),
                        diary::note,
                        () ->
                                kafka().readUncommitted(TOPIC).size()
                                        + " records in the topic (read_uncommitted)");
        assertThat(kills).as("kills that hit a running process").isPositive();

        // Step 3: a read_committed consumer sees each event exactly once, as written by an
        // uninterrupted run.
        List<ConsumerRecord<byte[], byte[]>> records =
                kafka().readCommittedOnceVisible(TOPIC, EVENTS);
        diary.note(
                "read_committed consumer: "
                        + records.size()
                        + " records; read_uncommitted: "
                        + kafka().readUncommitted(TOPIC).size()
                        + " (the difference: records of transactions that the kills left open and"
                        + " the reruns aborted)");
        Map<String, Long> counts =
                records.stream()
                        .collect(
                                Collectors.groupingBy(
                                        r -> new String(r.key(), StandardCharsets.UTF_8),
                                        TreeMap::new,
                                        Collectors.counting()));
        counts.values().removeIf(n -> n == 1);
        assertThat(counts).as("event ids written more than once (id -> count)").isEmpty();
        Map<String, String> seen = new TreeMap<>();
        records.forEach(
                r ->
                        seen.put(
                                new String(r.key(), StandardCharsets.UTF_8),
                                new String(r.value(), StandardCharsets.UTF_8)));
        assertThat(seen).containsExactlyInAnyOrderEntriesOf(expected);

        // Step 4: a rerun finds nothing new and writes nothing.
        QueryRunner.Result rerun =
                QueryRunner.run(
                        new BronzeToKafkaQuery(kafka().bootstrapServers(), TOPIC, Map.of()),
                        options);
        assertThat(rerun.batches()).isZero();
        assertThat(kafka().readCommittedOnceVisible(TOPIC, EVENTS)).hasSize(EVENTS);
        List<Long> batchIds =
                ProgressTracker.history(checkpoint).stream()
                        .map(p -> p.path("batchId").asLong())
                        .collect(Collectors.toList());
        diary.note("progress log: batch ids " + batchIds);
        assertThat(batchIds).isNotEmpty().isSorted().doesNotHaveDuplicates();
    }
}
