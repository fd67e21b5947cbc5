package org.flinkss.course.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.kafka.KafkaPlanner;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.source.kafka.KafkaSplit;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real-time run's refreshes of its Kafka planner, as its enumerator makes them every 10 ms, on a
 * real broker. Between full refreshes (topics, partitions, earliest and end offsets, once a second)
 * a refresh asks only the known partitions' end offsets: new records are planned at the next
 * refresh, a new partition once a full refresh has found it, and a topic deleted while the run
 * reads it by its pattern is dropped without a refresh waiting for Kafka's client timeout (a minute
 * here) on the partitions it knew.
 */
class KafkaPlannerRefreshITCase {

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    /** How long Kafka's client retries a request for partitions it cannot find. */
    private static final Map<String, String> CLIENT = Map.of("default.api.timeout.ms", "60000");

    /** Only catches a hang: a full refresh comes within a second, on a loaded machine within 10. */
    private static final Duration HANG = Duration.ofSeconds(30);

    @Test
    void newRecordsArePlannedAtTheNextRefreshAndANewPartitionOnceAFullOneFindsIt()
            throws Exception {
        KAFKA.broker().createTopic("seen-a", 1);
        KAFKA.broker().produce("seen-a", 0, 10);
        KafkaPlanner planner = realTimePlanner("seen-[a-z]");
        try {
            planner.refreshTarget();
            assertThat(plan(planner, 0)).containsExactly("seen-a-0:0-10");

            KAFKA.broker().produce("seen-a", 0, 2);
            planner.refreshTarget();
            assertThat(plan(planner, 1)).containsExactly("seen-a-0:10-12");

            try (Admin admin = admin()) {
                admin.createPartitions(Map.of("seen-a", NewPartitions.increaseTo(2)))
                        .all()
                        .get(1, TimeUnit.MINUTES);
            }
            KAFKA.broker().produce("seen-a", 1, 3);
            assertThat(refreshUntilPlanned(planner, 2)).containsExactly("seen-a-1:0-3");
        } finally {
            planner.close();
        }
    }

    @Test
    void aTopicDeletedWhileReadByItsPatternIsDroppedWithoutARefreshWaitingForKafkasTimeout()
            throws Exception {
        KAFKA.broker().createTopic("gone-a", 1);
        KAFKA.broker().createTopic("gone-b", 1);
        KAFKA.broker().produce("gone-a", 0, 5);
        KAFKA.broker().produce("gone-b", 0, 5);
        KafkaPlanner planner = realTimePlanner("gone-[a-z]");
        try {
            planner.refreshTarget();
            assertThat(plan(planner, 0)).containsExactly("gone-a-0:0-5", "gone-b-0:0-5");

            // The next refreshes, within a second of the full one, ask gone-b's end too.
            try (Admin admin = admin()) {
                admin.deleteTopics(List.of("gone-b")).all().get(1, TimeUnit.MINUTES);
            }
            KAFKA.broker().produce("gone-a", 0, 1);
            assertThat(refreshUntilPlanned(planner, 1)).containsExactly("gone-a-0:5-6");
        } finally {
            planner.close();
        }
    }

    /**
     * Refreshes every 10 ms, as a real-time run's enumerator does, until batch {@code batchId}
     * plans something; each refresh must end well within Kafka's client timeout. A refresh may fail
     * while the broker deletes a topic (the enumerator then fails the job, which restarts and
     * refreshes again): the loop goes on, as the restarted job would.
     */
    private static List<String> refreshUntilPlanned(KafkaPlanner planner, long batchId)
            throws Exception {
        long deadline = System.nanoTime() + HANG.toNanos();
        while (System.nanoTime() < deadline) {
            long started = System.nanoTime();
            try {
                planner.refreshTarget();
            } catch (IOException e) {
                System.out.println("a refresh failed, the next one goes on: " + e.getMessage());
            }
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .as("one refresh")
                    .isLessThan(HANG);
            List<String> planned = plan(planner, batchId);
            if (!planned.isEmpty()) {
                return planned;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("batch " + batchId + " planned nothing within " + HANG);
    }

    private static KafkaPlanner realTimePlanner(String pattern) throws IOException {
        KafkaPlanner planner =
                new KafkaPlanner(
                        KafkaSourceOptions.builder()
                                .bootstrapServers(KAFKA.broker().bootstrapServers())
                                .subscribePattern(pattern)
                                .startingOffsets("earliest")
                                .clientProperties(CLIENT)
                                .build());
        planner.startRealTime();
        planner.restore(null);
        return planner;
    }

    /** The next batch's ranges ({@code topic-partition:from-to}), committed. */
    private static List<String> plan(KafkaPlanner planner, long batchId) throws IOException {
        List<KafkaSplit> batch = planner.nextBatch(batchId, ReadLimit.none());
        List<String> ranges = new ArrayList<>();
        for (KafkaSplit split : batch) {
            if (split.to() > split.from()) {
                ranges.add(split.topicPartition() + ":" + split.from() + "-" + split.to());
            }
        }
        planner.commit(batch);
        return ranges;
    }

    private static Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.broker().bootstrapServers());
        return Admin.create(props);
    }
}
