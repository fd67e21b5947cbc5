package org.flinkss.runtime.runner.impl;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.runtime.runner.impl.MiniClusterRestAddressITCase.TIMEOUT;
import static org.flinkss.runtime.runner.impl.MiniClusterRestAddressITCase.assertTheJobManagerOfTheJobAnswers;
import static org.flinkss.runtime.runner.impl.MiniClusterRestAddressITCase.endless;

/**
 * The adapter on the cluster that {@code java -jar} starts for its job. No {@code
 * MiniClusterExtension} here on purpose: this is the cluster of a local environment, which the
 * extension's test environment would replace.
 */
class MiniClusterRestAddressPerJobITCase {

    @Test
    void theClusterThatJavaJarStartsForItsJobIsFoundAndGoneWithTheJob() throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        JobClient client = endless(StreamExecutionEnvironment.createLocalEnvironment(conf));
        try {
            assertTheJobManagerOfTheJobAnswers(client);
        } finally {
            client.cancel().get();
        }
        // The cluster shuts down with its job: no address, and no failure asking for it.
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (MiniClusterRestAddress.of(client, TIMEOUT).isPresent()
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(MiniClusterRestAddress.of(client, TIMEOUT)).isEmpty();
    }
}
