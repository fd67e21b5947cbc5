package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.course.queries.KafkaSettings;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;

import java.util.Map;

/**
 * The Kafka options of {@code run}, with Spark's option names in the help: what {@code
 * kafka-bronze} reads, and the client settings that it and {@code bronze-to-kafka} use.
 */
public final class KafkaOptions implements KafkaSettings {

    @Mixin KafkaClientOptions client;

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
            converter = Converters.LongLimit.class,
            description =
                    "kafka-bronze: at most N offsets per batch, split over partitions"
                            + " (maxOffsetsPerTrigger; default: no limit)")
    Long maxOffsetsPerTrigger;

    @Option(
            names = "--fail-on-data-loss",
            paramLabel = "true|false",
            arity = "1",
            description =
                    "kafka-bronze: fail when offsets to read are gone (failOnDataLoss; default:"
                            + " true)")
    Boolean failOnDataLoss;

    @Override
    public Map<String, String> clientProperties() {
        return client.clientProperties();
    }

    @Override
    public String bootstrapServers(Map<String, String> clientProperties) {
        return client.bootstrapServers(clientProperties);
    }

    @Override
    public KafkaSourceOptions sourceOptions() {
        return KafkaSourceOptions.builder()
                .bootstrapServers(client.bootstrapServersOption())
                .subscribe(subscribe)
                .subscribePattern(subscribePattern)
                .assign(assign)
                .startingOffsets(startingOffsets)
                .failOnDataLoss(failOnDataLoss == null || failOnDataLoss)
                .clientProperties(client.clientProperties())
                .build();
    }

    @Override
    public boolean readsKafka() {
        return subscribe != null
                || subscribePattern != null
                || assign != null
                || startingOffsets != null
                || maxOffsetsPerTrigger != null
                || failOnDataLoss != null;
    }

    @Override
    public boolean hasClientSettings() {
        return client.given();
    }

    /** Kafka's rate limit goes with the others, through the run's options. */
    public RunOptions.Builder applyTo(RunOptions.Builder run) {
        if (maxOffsetsPerTrigger != null) {
            run.maxOffsetsPerTrigger(maxOffsetsPerTrigger);
        }
        return run;
    }

    @Override
    public String topic() {
        return client.topic();
    }
}
