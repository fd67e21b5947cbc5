package org.flinkss.runtime.source.kafka;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaSourceOptionsTest {

    private static KafkaSourceOptions.Builder servers() {
        return KafkaSourceOptions.builder().bootstrapServers("127.0.0.1:9092");
    }

    @Test
    void descriptionsNameTheTopicsAsSparkDoes() {
        assertThat(servers().subscribe("events, more").build().description())
                .isEqualTo("KafkaV2[Subscribe[events,more]]");
        assertThat(servers().subscribePattern("ev.*").build().description())
                .isEqualTo("KafkaV2[SubscribePattern[ev.*]]");
        assertThat(servers().assign("{\"b\":[1,0],\"a\":[2]}").build().description())
                .isEqualTo("KafkaV2[Assign[a-2, b-0, b-1]]");
    }

    @Test
    void exactlyOneStrategyIsAccepted() {
        assertThatThrownBy(() -> servers().build())
                .hasMessageContaining("exactly one of subscribe")
                .hasMessageContaining("none was given");
        assertThatThrownBy(() -> servers().subscribe("a").assign("{\"a\":[0]}").build())
                .hasMessageContaining("got subscribe (--subscribe) and assign (--assign)");
        assertThatThrownBy(() -> servers().subscribePattern("(").build())
                .hasMessageContaining("is not a Java regex");
        assertThatThrownBy(() -> KafkaSourceOptions.builder().subscribe("a").build())
                .hasMessageContaining("needs bootstrap servers");
        assertThatThrownBy(
                        () ->
                                KafkaSourceOptions.builder()
                                        .bootstrapServers("<namespace>.servicebus.windows.net:9093")
                                        .subscribe("a")
                                        .build())
                .hasMessageContaining("is not host:port");
    }

    @Test
    void startingOffsetsAreEarliestLatestOrSparksJson() {
        assertThat(StartingOffsets.parse("EARLIEST").forAll()).isEqualTo(StartingOffsets.EARLIEST);
        assertThat(servers().subscribe("a").build().startingOffsets().forAll())
                .as("Spark's default")
                .isEqualTo(StartingOffsets.LATEST);
        StartingOffsets json = StartingOffsets.parse("{\"events\":{\"0\":23,\"1\":-2}}");
        assertThat(json.specific().get("events")).containsEntry(0, 23L).containsEntry(1, -2L);
        assertThatThrownBy(() -> StartingOffsets.parse("beginning"))
                .hasMessageContaining("use earliest, latest, or JSON");
        assertThatThrownBy(() -> StartingOffsets.parse("{\"events\":{\"0\":-3}}"))
                .hasMessageContaining("-2 (earliest) or -1 (latest)");
        assertThatThrownBy(
                        () ->
                                servers()
                                        .assign("{\"a\":[0]}")
                                        .startingOffsets("{\"a\":{\"1\":0}}")
                                        .build())
                .hasMessageContaining("names partitions [1] of 'a', but assign has [0]");
    }

    @Test
    void maxOffsetsPerTriggerIsSplitProRataAsInSpark() {
        Map<TopicPartition, long[]> ranges = new LinkedHashMap<>();
        ranges.put(new TopicPartition("t", 0), new long[] {0, 300});
        ranges.put(new TopicPartition("t", 1), new long[] {100, 200});
        ranges.put(new TopicPartition("t", 2), new long[] {5, 6});
        KafkaPlanner.rateLimit(ranges, 100);
        assertThat(ranges.get(new TopicPartition("t", 0))).containsExactly(0, 74);
        assertThat(ranges.get(new TopicPartition("t", 1))).containsExactly(100, 124);
        // A share below one offset rounds up, so that every partition moves.
        assertThat(ranges.get(new TopicPartition("t", 2))).containsExactly(5, 6);
    }

    @Test
    void clientSettingsComeFromAFileAndTheEnvironmentAndAreNeverDescribedWithValues(
            @TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(
                file,
                "security.protocol=SASL_SSL\n"
                        + "sasl.mechanism=PLAIN\n"
                        + "sasl.jaas.config=secret-from-file\n");
        Map<String, String> settings =
                KafkaClientProperties.load(
                        file,
                        Map.of(
                                "FLINKSS_KAFKA_SASL_JAAS_CONFIG", "secret-from-env",
                                "FLINKSS_KAFKA_HOME", "/opt/kafka",
                                "PATH", "/bin"));
        assertThat(settings)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.jaas.config", "secret-from-env")
                .doesNotContainKey("home");
        assertThat(KafkaClientProperties.describe(settings))
                .contains("sasl.jaas.config")
                .doesNotContain("secret");
        assertThat(servers().subscribe("a").clientProperties(settings).build().toString())
                .doesNotContain("secret");
        assertThatThrownBy(
                        () ->
                                KafkaClientProperties.load(
                                        dir.resolve("missing.properties"), Map.of()))
                .hasMessageContaining("does not exist");
    }
}
