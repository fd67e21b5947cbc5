package org.flinkss.course.queries;

import org.flinkss.runtime.source.kafka.KafkaSourceOptions;

import javax.annotation.Nullable;

import java.util.Map;

/** The Kafka settings a run gives the course's Kafka queries (the command line's Kafka options). */
public interface KafkaSettings {

    /** No Kafka settings: for every query that does not touch Kafka. */
    KafkaSettings NONE =
            new KafkaSettings() {
                @Override
                public boolean readsKafka() {
                    return false;
                }

                @Override
                public KafkaSourceOptions sourceOptions() {
                    return KafkaSourceOptions.builder().build();
                }

                @Override
                public Map<String, String> clientProperties() {
                    return Map.of();
                }

                @Override
                public String bootstrapServers(Map<String, String> clientProperties) {
                    return clientProperties.get("bootstrap.servers");
                }

                @Override
                public String topic() {
                    return null;
                }
            };

    /**
     * Whether a source option (subscribe, pattern, assign, starting offsets, offsets per trigger,
     * fail on data loss) was given.
     */
    boolean readsKafka();

    /** Whether a client option (bootstrap servers, a properties file) was given. */
    default boolean hasClientSettings() {
        return false;
    }

    /** What {@code kafka-bronze} reads, validated. */
    KafkaSourceOptions sourceOptions();

    /** Kafka client settings (security), never printed. */
    Map<String, String> clientProperties();

    String bootstrapServers(Map<String, String> clientProperties);

    /** The topic {@code bronze-to-kafka} writes to. */
    @Nullable
    String topic();
}
