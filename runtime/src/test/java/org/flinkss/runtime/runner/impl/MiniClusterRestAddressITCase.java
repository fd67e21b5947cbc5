package org.flinkss.runtime.runner.impl;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one adapter that reaches into Flink: it must find the REST address of the embedded cluster
 * that runs a job, on both paths the runner meets (here the tests' shared cluster; {@link
 * MiniClusterRestAddressPerJobITCase} the cluster of {@code java -jar}), or these tests fail after
 * a Flink upgrade.
 */
class MiniClusterRestAddressITCase {

    static final Duration TIMEOUT = Duration.ofSeconds(30);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    /** A job that runs until it is cancelled. */
    static JobClient endless(StreamExecutionEnvironment env) throws Exception {
        env.setParallelism(1);
        env.fromSequence(0, Long.MAX_VALUE).sinkTo(new DiscardingSink<>());
        return env.executeAsync("endless");
    }

    static void assertTheJobManagerOfTheJobAnswers(JobClient client) throws Exception {
        Optional<URI> address = MiniClusterRestAddress.of(client, TIMEOUT);
        assertThat(address).isPresent();
        Optional<JsonNode> job =
                new JobManagerRest(client, null, TIMEOUT).get("/jobs/" + client.getJobID());
        assertThat(job).isPresent();
        assertThat(job.get().path("jid").asText()).isEqualTo(client.getJobID().toString());
    }

    @Test
    void theTestsSharedClusterIsFound() throws Exception {
        JobClient client = endless(StreamExecutionEnvironment.getExecutionEnvironment());
        try {
            assertTheJobManagerOfTheJobAnswers(client);
        } finally {
            client.cancel().get();
        }
    }
}
