package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.runtime.source.kafka.KafkaClientProperties;

import javax.annotation.Nullable;

import java.nio.file.Path;
import java.util.Map;

/** How to reach Kafka, and the topic to write to: {@code land-events --to-kafka}, {@code run}. */
public final class KafkaClientOptions {

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "H:P[,H:P]",
            description = "Kafka's bootstrap servers (kafka.bootstrap.servers)")
    String bootstrapServers;

    @Option(
            names = "--topic",
            paramLabel = "T",
            description = "the topic to write to (land-events --to-kafka, run bronze-to-kafka)")
    String topic;

    @Option(
            names = "--kafka-properties",
            paramLabel = "FILE",
            description =
                    "Kafka client settings (security: SASL, SSL) as a properties file;"
                        + " FLINKSS_KAFKA_<NAME> variables override it. Values are never printed.")
    // A local file read once at the start, not a storage location: java.nio.
    Path propertiesFile;

    /** The settings of the file and the environment, never printed. */
    public Map<String, String> clientProperties() {
        return KafkaClientProperties.load(propertiesFile, System.getenv());
    }

    /** --bootstrap-servers, else bootstrap.servers of the client settings. */
    @Nullable
    public String bootstrapServers(Map<String, String> clientProperties) {
        return bootstrapServers != null
                ? bootstrapServers
                : clientProperties.get("bootstrap.servers");
    }

    @Nullable
    public String topic() {
        return topic;
    }

    /** Whether --bootstrap-servers or --kafka-properties was given. */
    public boolean given() {
        return bootstrapServers != null || propertiesFile != null;
    }

    @Nullable
    String bootstrapServersOption() {
        return bootstrapServers;
    }
}
