package org.flinkss.jobs;

import picocli.CommandLine.Option;

import org.flinkss.course.queries.KafkaSettings;
import org.flinkss.runtime.kafka.KafkaClientProperties;
import org.flinkss.runtime.kafka.KafkaSourceOptions;

import java.nio.file.Path;
import java.util.Map;

/** The Kafka options of {@code run}, with Spark's option names in the help. */
final class KafkaArgs implements KafkaSettings {

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "H:P[,H:P]",
            description = "Kafka's bootstrap servers (kafka.bootstrap.servers)")
    String bootstrapServers;

    @Option(
            names = "--subscribe",
            paramLabel = "T[,T]",
            description = "kafka-bronze: read these topics (subscribe)")
    String subscribe;

    @Option(
            names = "--subscribe-pattern",
            paramLabel = "REGEX",
            description =
                    "kafka-bronze: read every topic whose whole name matches (subscribePattern)")
    String subscribePattern;

    @Option(
            names = "--assign",
            paramLabel = "JSON",
            description = "kafka-bronze: read these partitions, e.g. {\"events\":[0,1]} (assign)")
    String assign;

    @Option(
            names = "--starting-offsets",
            paramLabel = "OFFSETS",
            description =
                    "kafka-bronze, first run only: earliest, latest, or JSON"
                            + " {\"events\":{\"0\":23,\"1\":-2}} (-2 earliest, -1 latest) (default:"
                            + " latest, as in Spark)")
    String startingOffsets;

    @Option(
            names = "--max-offsets-per-trigger",
            paramLabel = "N",
            defaultValue = "0",
            description =
                    "kafka-bronze: at most N offsets per batch, split over partitions"
                            + " (maxOffsetsPerTrigger; default: no limit)")
    long maxOffsetsPerTrigger;

    @Option(
            names = "--fail-on-data-loss",
            paramLabel = "true|false",
            defaultValue = "true",
            arity = "1",
            description =
                    "kafka-bronze: fail when offsets to read are gone (failOnDataLoss; default:"
                            + " ${DEFAULT-VALUE})")
    boolean failOnDataLoss;

    @Option(
            names = "--topic",
            paramLabel = "T",
            description = "bronze-to-kafka: the topic to write to")
    String topic;

    @Option(
            names = "--kafka-properties",
            paramLabel = "FILE",
            description =
                    "Kafka client settings (security: SASL, SSL) as a properties file;"
                        + " FLINKSS_KAFKA_<NAME> variables override it. Values are never printed.")
    Path propertiesFile;

    @Override
    public Map<String, String> clientProperties() {
        return KafkaClientProperties.load(propertiesFile, System.getenv());
    }

    @Override
    public String bootstrapServers(Map<String, String> clientProperties) {
        return bootstrapServers != null
                ? bootstrapServers
                : clientProperties.get("bootstrap.servers");
    }

    @Override
    public KafkaSourceOptions sourceOptions() {
        Map<String, String> properties = clientProperties();
        return KafkaSourceOptions.builder()
                .bootstrapServers(bootstrapServers)
                .subscribe(subscribe)
                .subscribePattern(subscribePattern)
                .assign(assign)
                .startingOffsets(startingOffsets)
                .maxOffsetsPerTrigger(maxOffsetsPerTrigger)
                .failOnDataLoss(failOnDataLoss)
                .clientProperties(properties)
                .build();
    }

    @Override
    public boolean readsKafka() {
        return subscribe != null
                || subscribePattern != null
                || assign != null
                || startingOffsets != null;
    }

    @Override
    public String topic() {
        return topic;
    }
}
