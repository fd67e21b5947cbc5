package org.flinkss.runtime.runner.impl;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class EarlyMiniClusterTest {

    @Test
    void aJobRunsOnTheClusterStartedBeforeItWasBuiltWhichEndsWithIt() throws Exception {
        EarlyMiniCluster early = EarlyMiniCluster.start(new Configuration(), 2);
        StreamExecutionEnvironment env = early.environment();
        env.setParallelism(2);

        List<Long> seen = new ArrayList<>();
        try (CloseableIterator<Long> rows =
                env.fromSequence(1, 100).map(x -> x * 2).executeAndCollect()) {
            rows.forEachRemaining(seen::add);
        }
        assertThat(seen).hasSize(100).contains(2L, 200L);
        assertThat(early.handedOver()).as("the job took the early cluster").isTrue();
        // Flink's job client shuts the cluster down when the job ends, as with its own cluster.
        awaitStopped(early);
        early.close();
    }

    @Test
    void aJobWithMoreSubtasksThanTheEarlyClusterHasSlotsGetsAClusterOfItsOwn() throws Exception {
        try (EarlyMiniCluster early = EarlyMiniCluster.start(new Configuration(), 1)) {
            StreamExecutionEnvironment env = early.environment();
            env.setParallelism(3);
            List<Long> seen = new ArrayList<>();
            try (CloseableIterator<Long> rows = env.fromSequence(1, 30).executeAndCollect()) {
                rows.forEachRemaining(seen::add);
            }
            assertThat(seen).hasSize(30);
            assertThat(early.handedOver())
                    .as("the early cluster, too small, was not used")
                    .isFalse();
            awaitStopped(early);
        }
    }

    @Test
    void aRunThatEndsBeforeItsJobShutsTheEarlyClusterDown() throws Exception {
        EarlyMiniCluster early = EarlyMiniCluster.start(new Configuration(), 2);
        URI rest = early.restAddress().get();
        assertThat(rest.getPort()).as("any free port").isPositive();
        early.close();
        awaitStopped(early);
    }

    private static void awaitStopped(EarlyMiniCluster early) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (early.earlyClusterRunning() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(early.earlyClusterRunning()).as("the early cluster runs").isFalse();
    }

    @Test
    void aJobOfTheLargestParallelismGivenSmallNetworkBuffersRunsItsShuffles() throws Exception {
        int parallelism = EarlyMiniCluster.SMALL_NETWORK_MAX_SLOTS;
        EarlyMiniCluster early = EarlyMiniCluster.start(new Configuration(), parallelism);
        StreamExecutionEnvironment env = early.environment();
        env.setParallelism(parallelism);
        List<Long> seen = new ArrayList<>();
        try (CloseableIterator<Long> rows =
                env.fromSequence(1, 10_000)
                        .keyBy(x -> x % 7)
                        .map(x -> x + 1)
                        .keyBy(x -> x % 5)
                        .map(x -> x - 1)
                        .rebalance()
                        .map(x -> x * 2)
                        .keyBy(x -> x % 3)
                        .map(x -> x / 2)
                        .executeAndCollect()) {
            rows.forEachRemaining(seen::add);
        }
        assertThat(early.handedOver()).as("the job took the early cluster").isTrue();
        assertThat(seen).hasSize(10_000);
        assertThat(seen.stream().mapToLong(Long::longValue).sum()).isEqualTo(10_000L * 10_001 / 2);
        awaitStopped(early);
        early.close();
    }

    @Test
    void aSmallClusterGetsSmallNetworkBuffersUnlessTheConfigurationSetsThem() {
        Configuration conf = new Configuration();
        Configuration small = EarlyMiniCluster.clusterConfiguration(conf, 2).getConfiguration();
        assertThat(small.get(TaskManagerOptions.NETWORK_MEMORY_MIN))
                .isEqualTo(EarlyMiniCluster.SMALL_NETWORK);
        assertThat(small.get(TaskManagerOptions.NETWORK_MEMORY_MAX))
                .isEqualTo(EarlyMiniCluster.SMALL_NETWORK);

        Configuration large = EarlyMiniCluster.clusterConfiguration(conf, 8).getConfiguration();
        assertThat(large.get(TaskManagerOptions.NETWORK_MEMORY_MAX))
                .as("Flink's local default for 8 slots")
                .isEqualTo(MemorySize.ofMebiBytes(64));

        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(128));
        Configuration set = EarlyMiniCluster.clusterConfiguration(conf, 2).getConfiguration();
        assertThat(set.get(TaskManagerOptions.NETWORK_MEMORY_MAX))
                .isEqualTo(MemorySize.ofMebiBytes(128));
        assertThat(set.get(TaskManagerOptions.NETWORK_MEMORY_MIN))
                .isNotEqualTo(EarlyMiniCluster.SMALL_NETWORK);
    }

    @Test
    void theClusterIsConfiguredAsFlinksLocalExecutorWouldConfigureIt() {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 2);
        MiniClusterConfiguration cluster = EarlyMiniCluster.clusterConfiguration(conf, 4);
        assertThat(cluster.getNumTaskManagers()).isEqualTo(1);
        assertThat(cluster.getConfiguration().get(TaskManagerOptions.NUM_TASK_SLOTS)).isEqualTo(4);
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, 6);
        assertThat(
                        EarlyMiniCluster.clusterConfiguration(conf, 4)
                                .getConfiguration()
                                .get(TaskManagerOptions.NUM_TASK_SLOTS))
                .as("slots the configuration sets")
                .isEqualTo(6);
    }
}
