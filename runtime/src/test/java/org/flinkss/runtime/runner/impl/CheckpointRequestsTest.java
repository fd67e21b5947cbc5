package org.flinkss.runtime.runner.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link CheckpointRequests} reads Flink 2.2's answer to a manual checkpoint ({@code GET
 * /jobs/<id>/checkpoints/<request id>}). The declined answer is the one an embedded cluster gave a
 * run's first request, while a task was still starting (its stack trace cut short). Reading its
 * failure under another name than Flink's made every first batch of a windowed run wait for the
 * periodic checkpoint (up to 30 s a run).
 */
class CheckpointRequestsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aDeclinedCheckpointsAnswerSaysItFailed() throws Exception {
        String declined =
                "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failureCause\":{\"class\":"
                        + "\"java.util.concurrent.CompletionException\",\"stack-trace\":"
                        + "\"java.util.concurrent.CompletionException: org.apache.flink.runtime"
                        + ".checkpoint\"}}}";

        assertThat(CheckpointRequests.failed(JSON.readTree(declined))).isTrue();
    }

    @Test
    void aTakenCheckpointsAnswerDoesNot() throws Exception {
        String taken = "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"checkpointId\":3}}";

        assertThat(CheckpointRequests.failed(JSON.readTree(taken))).isFalse();
    }
}
