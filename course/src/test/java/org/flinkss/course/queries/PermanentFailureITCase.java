package org.flinkss.course.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.testutils.MiniClusters;
import org.flinkss.testutils.ProjectScripts;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Issue 14, point 9: an error no restart can fix fails the run at once, with one clear line,
 * instead of after minutes of restarts.
 */
class PermanentFailureITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    @Test
    void aKafkaBrokerThatDoesNotAnswerWithinTheTimeoutFailsTheRunAtOnce() throws Exception {
        String nobody = "127.0.0.1:" + ProjectScripts.freePort();
        KafkaBronzeQuery bronze =
                new KafkaBronzeQuery(
                        KafkaSourceOptions.builder()
                                .bootstrapServers(nobody)
                                .subscribe("events")
                                .startingOffsets("earliest")
                                .clientProperties(
                                        Map.of(
                                                "default.api.timeout.ms",
                                                "3000",
                                                "request.timeout.ms",
                                                "3000"))
                                .build());
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(1)
                        .printProgress(false)
                        .build();

        long start = System.nanoTime();
        // Before: 11 restarts over minutes (exponential delay up to 10 s), then the same error.
        assertTimeoutPreemptively(
                Duration.ofSeconds(90),
                () ->
                        assertThatThrownBy(() -> QueryRunner.run(bronze, options))
                                .isInstanceOf(QueryException.class)
                                .hasMessageContaining(
                                        "Kafka at " + nobody + " did not answer within PT3S")
                                .hasMessageContaining("no restart can fix it"),
                "the run failed within 90 s (before: restarts for more than 10 minutes)");
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.println("an unreachable broker failed the run in " + took);
        assertThat(took).isLessThan(Duration.ofSeconds(60));
    }

    @Test
    void wrongKafkaClientSettingsFailTheRunAtOnce() throws Exception {
        KafkaBronzeQuery bronze =
                new KafkaBronzeQuery(
                        KafkaSourceOptions.builder()
                                .bootstrapServers("127.0.0.1:" + ProjectScripts.freePort())
                                .subscribe("events")
                                .startingOffsets("earliest")
                                // Kafka refuses an api timeout below the request timeout (30 s).
                                .clientProperties(Map.of("default.api.timeout.ms", "3000"))
                                .build());
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(1)
                        .printProgress(false)
                        .build();

        long start = System.nanoTime();
        // Before: 11 restarts in 83 s, then this ConfigException.
        assertThatThrownBy(() -> QueryRunner.run(bronze, options))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("the Kafka client settings for 127.0.0.1:")
                .hasMessageContaining("are wrong, which no restart can fix")
                .hasMessageContaining("default.api.timeout.ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void aTopicThatDoesNotExistFailsTheRunAtOnceNamingIt() throws Exception {
        try (KafkaTestBroker kafka = KafkaTestBroker.start()) {
            KafkaBronzeQuery bronze =
                    new KafkaBronzeQuery(
                            KafkaSourceOptions.builder()
                                    .bootstrapServers(kafka.bootstrapServers())
                                    .subscribe("no-such-topic")
                                    .startingOffsets("earliest")
                                    .build());
            RunOptions options =
                    RunOptions.builder()
                            .base(Storage.location(base.toFile()))
                            .parallelism(1)
                            .printProgress(false)
                            .build();

            long start = System.nanoTime();
            // Before: the run read nothing and said "nothing new", as if the topic were empty;
            // Spark fails the query (UnknownTopicOrPartitionException).
            assertThatThrownBy(() -> QueryRunner.run(bronze, options))
                    .isInstanceOf(QueryException.class)
                    .hasMessageContaining(
                            "topic 'no-such-topic' does not exist on Kafka at "
                                    + kafka.bootstrapServers())
                    .hasMessageContaining("no restart can fix it");
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isLessThan(Duration.ofSeconds(40));
        }
    }
}
