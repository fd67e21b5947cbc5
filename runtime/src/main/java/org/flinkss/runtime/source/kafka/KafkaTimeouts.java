package org.flinkss.runtime.source.kafka;

import org.apache.kafka.clients.CommonClientConfigs;

import java.util.Map;

/**
 * How long the source waits for Kafka before it fails (and Flink's restart strategy takes over).
 */
final class KafkaTimeouts {

    /** Kafka's own default for {@code default.api.timeout.ms}. */
    public static final long DEFAULT_API_TIMEOUT_MS = 60_000;

    private KafkaTimeouts() {}

    /** {@code default.api.timeout.ms} of the client settings, else Kafka's default of 60 s. */
    public static long apiTimeoutMillis(Map<String, String> clientProperties) {
        String value = clientProperties.get(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG);
        if (value == null) {
            return DEFAULT_API_TIMEOUT_MS;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG
                            + " must be a number of milliseconds, got '"
                            + value
                            + "'");
        }
    }
}
