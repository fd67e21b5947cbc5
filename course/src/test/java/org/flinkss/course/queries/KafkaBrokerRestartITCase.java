package org.flinkss.course.queries;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.executiongraph.ErrorInfo;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventJson;
import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.source.kafka.KafkaTables;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.trigger.Trigger;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A continuous {@code kafka-bronze} run ({@code processing-time=1s}) survives a restart of the
 * broker while events are being produced: the source fails once Kafka does not answer within {@code
 * default.api.timeout.ms} (3 s here), Flink's restart strategy restarts the job from its last
 * checkpoint, again and again until the broker is back, and the table ends up with every event
 * exactly once.
 */
class KafkaBrokerRestartITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final String TOPIC = "restart-events";
    private static final Duration DOWN = Duration.ofSeconds(8);

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    @TempDir Path base;

    private final long testStart = System.nanoTime();
    private final List<String> timeline = new ArrayList<>();

    private static KafkaTestBroker kafka() {
        return KAFKA.broker();
    }

    @Test
    void aBrokerRestartDuringAContinuousRunLosesAndDuplicatesNothing(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        try {
            scenario(miniCluster);
        } finally {
            System.out.println("KafkaBrokerRestartITCase timeline:");
            timeline.forEach(line -> System.out.println("  " + line));
        }
    }

    private void scenario(MiniCluster miniCluster) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .out(new PrintStream(printed, true, StandardCharsets.UTF_8))
                        .parallelism(2)
                        .printProgress(false)
                        .trigger(Trigger.processingTime(Duration.ofSeconds(1)))
                        // Long enough for the steps below at a load of 20-40 on 2 cores, where a
                        // first commit took over 30 s (the run lasts this long in any case).
                        .runFor(Duration.ofSeconds(90))
                        // Short back-offs, so that the job is back soon after the broker.
                        .flinkOption("restart-strategy.exponential-delay.initial-backoff", "500 ms")
                        .flinkOption("restart-strategy.exponential-delay.max-backoff", "2 s")
                        .build();
        Warehouse warehouse = new Warehouse(options.warehouse());
        KafkaBronzeQuery query =
                new KafkaBronzeQuery(
                        KafkaSourceOptions.builder()
                                .bootstrapServers(kafka().bootstrapServers())
                                .subscribe(TOPIC)
                                .startingOffsets("earliest")
                                .clientProperties(
                                        Map.of(
                                                "default.api.timeout.ms",
                                                "3000",
                                                "request.timeout.ms",
                                                "2000"))
                                .build());
        kafka().createTopic(TOPIC, 3);

        // Step 1: 500 events, then the continuous run; it commits them within a few triggers.
        kafka().produceEvents(TOPIC, 0, 500);
        CompletableFuture<QueryRunner.Result> run =
                CompletableFuture.supplyAsync(() -> QueryRunner.run(query, options));
        awaitCount(warehouse, 500, Duration.ofSeconds(60), run);
        note("500 rows committed by the continuous run");

        // Step 2: 1000 more events in chunks, while the broker goes down for 8 s and comes back on
        // the same port.
        CompletableFuture<Void> producing =
                CompletableFuture.runAsync(
                        () -> {
                            for (long start = 500; start < 1500; start += 100) {
                                kafka().produceEvents(TOPIC, start, 100);
                                sleep(Duration.ofMillis(300));
                            }
                        });
        sleep(Duration.ofMillis(700));
        note("broker down");
        kafka().restartBroker(DOWN);
        note("broker up again");
        producing.get(2, TimeUnit.MINUTES);
        note("1500 events produced");

        // Step 3: the job failed while Kafka was away, was restarted by its restart strategy, and
        // caught up.
        JobID job = runningJob(miniCluster);
        ErrorInfo failure =
                miniCluster.getExecutionGraph(job).get(1, TimeUnit.MINUTES).getFailureInfo();
        note(
                "last failure of the job: "
                        + (failure == null
                                ? "none"
                                : failure.getExceptionAsString().lines().findFirst().orElse("")));
        assertThat(failure).as("a failure handled by the restart strategy").isNotNull();
        awaitCount(warehouse, 1500, Duration.ofSeconds(60), run);
        note("1500 rows committed");

        // Step 4: the run stops at its end (--run-for) with a savepoint; every event is in the
        // table once.
        QueryRunner.Result result = run.get(2, TimeUnit.MINUTES);
        note(
                "run ended: "
                        + result.batches()
                        + " batches, "
                        + result.numInputRows()
                        + " rows read");
        List<Long> ids =
                warehouse.rows(KafkaBronzeQuery.TABLE).stream()
                        .map(
                                row ->
                                        EventJson.parse(
                                                        new String(
                                                                row.getBinary(KafkaTables.VALUE),
                                                                StandardCharsets.UTF_8))
                                                .eventId)
                        .collect(Collectors.toList());
        Map<Long, Long> duplicates =
                ids.stream()
                        .collect(
                                Collectors.groupingBy(
                                        id -> id, TreeMap::new, Collectors.counting()));
        duplicates.values().removeIf(n -> n == 1);
        assertThat(duplicates).as("event ids written more than once").isEmpty();

        // The run said, one line each, why its job restarted (issue 14, point 9).
        List<String> notes =
                printed.toString(StandardCharsets.UTF_8)
                        .lines()
                        .filter(line -> line.contains("the job restarts from its last checkpoint"))
                        .collect(Collectors.toList());
        notes.forEach(line -> note("printed: " + line));
        assertThat(notes)
                .isNotEmpty()
                .anySatisfy(
                        line ->
                                assertThat(line)
                                        .startsWith("query 'kafka-bronze': ")
                                        .contains("Kafka at " + kafka().bootstrapServers()));
        assertThat(ids.stream().sorted().collect(Collectors.toList()))
                .containsExactlyElementsOf(
                        LongStream.range(0, 1500).boxed().collect(Collectors.toList()));
    }

    private static JobID runningJob(MiniCluster miniCluster) throws Exception {
        for (JobStatusMessage job : miniCluster.listJobs().get(1, TimeUnit.MINUTES)) {
            if (!job.getJobState().isGloballyTerminalState()) {
                return job.getJobId();
            }
        }
        throw new AssertionError("no running job");
    }

    private void awaitCount(
            Warehouse warehouse, long expected, Duration timeout, CompletableFuture<?> run)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long count = 0;
        while (System.nanoTime() < deadline) {
            if (run.isDone()) {
                run.get();
            }
            count =
                    warehouse.exists(KafkaBronzeQuery.TABLE)
                            ? warehouse.count(KafkaBronzeQuery.TABLE)
                            : 0;
            if (count >= expected) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError(
                "the table has " + count + " rows after " + timeout + ", expected " + expected);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void note(String event) {
        timeline.add(String.format("%6.1f s  %s", (System.nanoTime() - testStart) / 1e9, event));
    }
}
