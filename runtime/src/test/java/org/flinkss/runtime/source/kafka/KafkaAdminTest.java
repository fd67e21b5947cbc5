package org.flinkss.runtime.source.kafka;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.PermanentFailure;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A broker that does not answer: permanent if it never answered the source (a wrong address, a
 * broker that is down), a restart's matter if it did (it went away). The broker that answers and
 * then goes away for real is {@code KafkaBrokerRestartITCase}.
 */
class KafkaAdminTest {

    private static final Map<String, String> QUICK =
            Map.of("default.api.timeout.ms", "2000", "request.timeout.ms", "1000");

    @Test
    void serversThatNeverAnsweredTheSourceFailItWithNoRestart() throws IOException {
        String nobody = "127.0.0.1:" + freePort();
        KafkaSourceOptions options =
                KafkaSourceOptions.builder().bootstrapServers(nobody).subscribe("events").build();

        try (KafkaAdmin admin = new KafkaAdmin(nobody, QUICK, false)) {
            assertThatThrownBy(() -> admin.partitions(options))
                    .isInstanceOf(PermanentFailure.class)
                    .hasMessageContaining("Kafka at " + nobody + " did not answer within PT2S")
                    .hasMessageContaining("no restart can fix it");
            assertThat(admin.answered()).isFalse();
        }
    }

    @Test
    void serversThatAnsweredTheSourceBeforeFailOnlyThisAttempt() throws IOException {
        String gone = "127.0.0.1:" + freePort();
        KafkaSourceOptions options =
                KafkaSourceOptions.builder().bootstrapServers(gone).subscribe("events").build();

        try (KafkaAdmin admin = new KafkaAdmin(gone, QUICK, true)) {
            assertThatThrownBy(() -> admin.partitions(options))
                    .isExactlyInstanceOf(IOException.class)
                    .hasMessageContaining("Kafka at " + gone + ", which answered before")
                    .hasMessageContaining("the job restarts and asks again");
            assertThat(admin.answered()).isTrue();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
