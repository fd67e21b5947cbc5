package org.flinkss.runtime.source.kafka;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * Kafka client settings that do not belong in code: security (SASL, SSL), and anything else a
 * managed endpoint needs (Event Hubs, MSK). They come from a properties file ({@code
 * --kafka-properties FILE}) and from the environment, where {@code FLINKSS_KAFKA_<NAME>} sets the
 * client setting {@code <name>} with {@code _} read as {@code .} ({@code
 * FLINKSS_KAFKA_SASL_JAAS_CONFIG} is {@code sasl.jaas.config}); the environment wins over the file.
 * {@code docs/kafka-client.properties.example} shows Event Hubs and MSK.
 *
 * <p>Values are never printed or logged: {@link #describe} names the keys only. They do travel in
 * the Flink job (the source and the sink need them on the task managers), as with any Flink Kafka
 * connector.
 */
public final class KafkaClientProperties {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaClientProperties.class);

    public static final String ENV_PREFIX = "FLINKSS_KAFKA_";

    /** Variables of {@code scripts/kafka}, not client settings. */
    private static final Set<String> SCRIPT_VARIABLES =
            Set.of("FLINKSS_KAFKA_HOME", "FLINKSS_KAFKA_TIMEOUT");

    private KafkaClientProperties() {}

    /**
     * The settings of {@code file} (if not null), overridden by {@code FLINKSS_KAFKA_*} of {@code
     * env}.
     */
    public static Map<String, String> load(@Nullable Path file, Map<String, String> env) {
        Map<String, String> settings = new TreeMap<>();
        if (file != null) {
            Properties properties = new Properties();
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                properties.load(in);
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException(
                        "Kafka properties file " + file + " does not exist");
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot read Kafka properties file " + file + ": " + e.getMessage(), e);
            }
            properties
                    .stringPropertyNames()
                    .forEach(key -> settings.put(key.trim(), properties.getProperty(key).trim()));
        }
        Set<String> known = knownKeys();
        env.forEach(
                (name, value) -> {
                    if (!name.startsWith(ENV_PREFIX) || SCRIPT_VARIABLES.contains(name)) {
                        return;
                    }
                    String key =
                            name.substring(ENV_PREFIX.length())
                                    .toLowerCase(Locale.ROOT)
                                    .replace('_', '.');
                    if (!known.contains(key)) {
                        LOG.warn(
                                "Ignoring environment variable {}: '{}' is not a Kafka client"
                                        + " setting",
                                name,
                                key);
                        return;
                    }
                    settings.put(key, value);
                });
        return settings;
    }

    /** The keys only, for logs and messages: values may be secrets. */
    public static String describe(Map<String, String> settings) {
        return settings.isEmpty()
                ? "no extra client settings"
                : "client settings " + settings.keySet() + " (values not shown)";
    }

    private static Set<String> knownKeys() {
        Set<String> keys = new HashSet<>(ConsumerConfig.configNames());
        keys.addAll(ProducerConfig.configNames());
        keys.addAll(AdminClientConfig.configNames());
        return keys;
    }
}
