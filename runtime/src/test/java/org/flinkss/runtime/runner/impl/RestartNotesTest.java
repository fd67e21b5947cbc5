package org.flinkss.runtime.runner.impl;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RestartNotesTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final RestartNotes notes =
            new RestartNotes("kafka-bronze", new PrintStream(bytes, true, StandardCharsets.UTF_8));

    private static final ExceptionHistory.Failure KAFKA_GONE =
            new ExceptionHistory.Failure(
                    null,
                    1_000,
                    List.of(
                            "FlinkException: Global failure triggered by OperatorCoordinator for"
                                + " 'Source: events' (operator cbc357ccb763df2852fee8c4fc7d55f2).",
                            "IOException: Kafka at 127.0.0.1:9092, which answered before, did not"
                                    + " answer within PT3S (list topics): the job restarts and asks"
                                    + " again",
                            "TimeoutException: Timed out waiting for a node assignment."));

    private static final ExceptionHistory.Failure TASK_LOST =
            new ExceptionHistory.Failure(
                    "Source: events -> split-bad-lines -> (to-events_bronze -> events_bronze) (1/2)"
                            + " - execution #3",
                    2_000,
                    List.of("IOException: disk\n    full"));

    private static final ExceptionHistory.Failure RESTART_REQUEST =
            new ExceptionHistory.Failure(
                    null,
                    2_100,
                    List.of(
                            "FlinkException: Global failure triggered by OperatorCoordinator",
                            "GlobalRestartRequest: source 'events': reader 1 restarted"));

    @Test
    void eachFailureIsNotedOnceOldestFirstWithWhatFailed() {
        notes.noteNew(List.of(KAFKA_GONE));
        notes.noteNew(List.of(KAFKA_GONE)); // read again while the job still restarts
        notes.noteNew(List.of(RESTART_REQUEST, TASK_LOST, KAFKA_GONE));

        assertThat(printed())
                .containsExactly(
                        "query 'kafka-bronze': the job restarts from its last checkpoint after a"
                                + " failure: IOException: Kafka at 127.0.0.1:9092, which answered"
                                + " before, did not answer within PT3S (list topics): the job"
                                + " restarts and asks again",
                        "query 'kafka-bronze': the job restarts from its last checkpoint after a"
                                + " failure in task 'Source: events -> ... (1/2)': IOException:"
                                + " disk full");
    }

    @Test
    void aLongMessageIsShortenedToOneLine() {
        String longMessage = "IOException: " + "x".repeat(1000);
        assertThat(RestartNotes.what(List.of(longMessage))).hasSize(300).endsWith("...");
        assertThat(
                        RestartNotes.what(
                                List.of(
                                        "RuntimeException: java.io.IOException: gone",
                                        "IOException: gone")))
                .isEqualTo("IOException: gone");
        assertThat(RestartNotes.what(RESTART_REQUEST.chain)).isNull();
    }

    private List<String> printed() {
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
