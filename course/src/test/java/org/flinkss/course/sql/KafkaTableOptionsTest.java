package org.flinkss.course.sql;

import org.apache.flink.configuration.Configuration;

import org.junit.jupiter.api.Test;

import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.source.kafka.StartingOffsets;
import org.flinkss.runtime.sql.SqlTableException;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Flink's Kafka connector options as the micro-batch Kafka source's, and what is refused. */
class KafkaTableOptionsTest {

    private static KafkaSourceOptions source(Map<String, String> options) {
        Map<String, String> all = new HashMap<>(options);
        all.put("properties.bootstrap.servers", "127.0.0.1:9092");
        return KafkaTableOptions.source("events", Configuration.fromMap(all), Map.of());
    }

    @Test
    void topicsSeparatedBySemicolonsAreSubscribedAndTheStartupModeIsSparksStartingOffsets() {
        KafkaSourceOptions kafka =
                source(Map.of("topic", "a;b", "scan.startup.mode", "earliest-offset"));

        assertThat(kafka.description()).isEqualTo("KafkaV2[Subscribe[a,b]]");
        assertThat(kafka.namedTopics()).containsExactly("a", "b");
        assertThat(kafka.startingOffsets().forAll()).isEqualTo(StartingOffsets.EARLIEST);
        // Without a mode: Spark's default, latest (Flink's group-offsets is not read here).
        assertThat(source(Map.of("topic", "a")).startingOffsets().forAll())
                .isEqualTo(StartingOffsets.LATEST);
    }

    @Test
    void aTopicPatternMatchesWholeNamesAsFlinksDoes() {
        KafkaSourceOptions kafka = source(Map.of("topic-pattern", "raw-.*"));

        assertThat(kafka.subscribes("raw-values")).isTrue();
        // The runtime's pattern is found anywhere in a name (Spark's); Flink's matches it whole.
        assertThat(kafka.subscribes("old-raw-values")).isFalse();
    }

    @Test
    void specificOffsetsAreFlinksListAsSparksJson() {
        KafkaSourceOptions kafka =
                source(
                        Map.of(
                                "topic",
                                "events",
                                "scan.startup.mode",
                                "specific-offsets",
                                "scan.startup.specific-offsets",
                                "partition:0,offset:42;partition:1,offset:300"));

        assertThat(kafka.startingOffsets().specific())
                .isEqualTo(Map.of("events", new TreeMap<>(Map.of(0, 42L, 1, 300L))));
    }

    @Test
    void badCombinationsAreRefusedNamingTheTable() {
        assertThatThrownBy(() -> source(Map.of("topic", "a", "topic-pattern", "a.*")))
                .isInstanceOf(SqlTableException.class)
                .hasMessage("table 'events': give exactly one of 'topic' and 'topic-pattern'");
        assertThatThrownBy(
                        () -> source(Map.of("topic", "a", "scan.startup.mode", "specific-offsets")))
                .hasMessageContaining("needs 'scan.startup.specific-offsets'");
        assertThatThrownBy(
                        () ->
                                source(
                                        Map.of(
                                                "topic",
                                                "a",
                                                "scan.startup.mode",
                                                "specific-offsets",
                                                "scan.startup.specific-offsets",
                                                "0:42")))
                .hasMessage(
                        "table 'events': 'scan.startup.specific-offsets' entry '0:42' is not"
                                + " partition:N,offset:M");
        assertThatThrownBy(() -> source(Map.of("topic", "a", "scan.startup.mode", "timestamp")))
                .hasMessageStartingWith(
                        "table 'events': 'scan.startup.mode' = 'timestamp' is not supported");
    }

    @Test
    void optionsOfFlinksConnectorThatAreNotTakenAreRefusedOneByName() {
        assertThatThrownBy(
                        () ->
                                KafkaTableOptions.refuseUnsupported(
                                        "events",
                                        Map.of("topic", "a", "sink.delivery-guarantee", "x")))
                .isInstanceOf(SqlTableException.class)
                .hasMessage(
                        "table 'events': option 'sink.delivery-guarantee' of Flink's Kafka"
                                + " connector is not supported by sql --file's micro-batch Kafka"
                                + " source: a sink's option, on a table that is read");
        assertThatThrownBy(
                        () ->
                                KafkaTableOptions.refuseUnsupported(
                                        "events", Map.of("value.json.fail-on-missing-field", "x")))
                .hasMessageContaining("'value.json.fail-on-missing-field'");
        KafkaTableOptions.refuseUnsupported(
                "events", Map.of("topic", "a", "properties.security.protocol", "SSL"));
    }

    @Test
    void clientSettingsAreThePropertiesOptionsWithTheEnvironmentOnTop() {
        Map<String, String> settings =
                KafkaTableOptions.clientProperties(
                        Map.of(
                                "topic", "a",
                                "properties.security.protocol", "PLAINTEXT",
                                "properties.client.rack", "r1"),
                        Map.of("FLINKSS_KAFKA_SECURITY_PROTOCOL", "SASL_SSL", "HOME", "/x"));

        assertThat(settings)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("client.rack", "r1")
                .doesNotContainKey("topic");
    }
}
