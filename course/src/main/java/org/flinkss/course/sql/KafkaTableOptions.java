package org.flinkss.course.sql;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;

import org.flinkss.runtime.source.kafka.KafkaClientProperties;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.sql.SqlTableException;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The options of {@code 'connector' = 'kafka'} in {@code sql --file}: Flink's Kafka connector's
 * names with Spark's meaning ({@code scan.startup.mode} is Spark's {@code startingOffsets}: it
 * applies to a fresh checkpoint only), and the project's {@code max-offsets-per-trigger} (Spark's
 * {@code maxOffsetsPerTrigger}). Options of Flink's connector that the micro-batch source cannot
 * honour are refused in one line naming the option.
 */
final class KafkaTableOptions {

    static final String PROPERTIES_PREFIX = "properties.";

    static final ConfigOption<String> BOOTSTRAP_SERVERS =
            ConfigOptions.key("properties.bootstrap.servers")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("host:port[,host:port]");

    static final ConfigOption<String> TOPIC =
            ConfigOptions.key("topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("A topic, or topics separated by ';'.");

    static final ConfigOption<String> TOPIC_PATTERN =
            ConfigOptions.key("topic-pattern")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("A Java regex that whole topic names match.");

    static final ConfigOption<String> STARTUP_MODE =
            ConfigOptions.key("scan.startup.mode")
                    .stringType()
                    .defaultValue("latest-offset")
                    .withDescription(
                            "earliest-offset, latest-offset (the default, as Spark's) or"
                                    + " specific-offsets: where a fresh checkpoint starts.");

    static final ConfigOption<String> SPECIFIC_OFFSETS =
            ConfigOptions.key("scan.startup.specific-offsets")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("partition:0,offset:42;partition:1,offset:300");

    static final ConfigOption<String> FORMAT =
            ConfigOptions.key("format")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("json (the course's events) or raw.");

    static final ConfigOption<String> VALUE_FORMAT =
            ConfigOptions.key("value.format")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("As 'format'.");

    static final ConfigOption<Long> MAX_OFFSETS_PER_TRIGGER =
            ConfigOptions.key("max-offsets-per-trigger")
                    .longType()
                    .noDefaultValue()
                    .withDescription("At most this many offsets per micro-batch.");

    static final ConfigOption<Boolean> FAIL_ON_DATA_LOSS =
            ConfigOptions.key("fail-on-data-loss")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription("Spark's failOnDataLoss.");

    static final ConfigOption<String> QUARANTINE_TABLE =
            ConfigOptions.key("quarantine-table")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A table for the values that are not events: topic, partition,"
                                    + " offset, raw, reason.");

    static final Set<ConfigOption<?>> OPTIONAL =
            Set.of(
                    TOPIC,
                    TOPIC_PATTERN,
                    STARTUP_MODE,
                    SPECIFIC_OFFSETS,
                    FORMAT,
                    VALUE_FORMAT,
                    MAX_OFFSETS_PER_TRIGGER,
                    FAIL_ON_DATA_LOSS,
                    QUARANTINE_TABLE);

    /** Options of Flink's Kafka connector that are not taken, and why. */
    private static final Map<String, String> UNSUPPORTED = new TreeMap<>();

    static {
        String bounded = "an available-now run is bounded at the offsets found at its start";
        String sink = "a sink's option, on a table that is read";
        String key = "only the value is read (its key is not a column)";
        UNSUPPORTED.put("scan.bounded.mode", bounded);
        UNSUPPORTED.put("scan.bounded.timestamp-millis", bounded);
        UNSUPPORTED.put("scan.bounded.specific-offsets", bounded);
        UNSUPPORTED.put(
                "scan.startup.timestamp-millis", "scan.startup.mode 'timestamp' is not read here");
        UNSUPPORTED.put(
                "scan.topic-partition-discovery.interval",
                "each micro-batch finds the topic's partitions itself");
        UNSUPPORTED.put("scan.parallelism", "the run's --parallelism applies");
        UNSUPPORTED.put("key.format", key);
        UNSUPPORTED.put("key.fields", key);
        UNSUPPORTED.put("key.fields-prefix", key);
        UNSUPPORTED.put("value.fields-include", key);
        UNSUPPORTED.put("sink.partitioner", sink);
        UNSUPPORTED.put("sink.semantic", sink);
        UNSUPPORTED.put("sink.delivery-guarantee", sink);
        UNSUPPORTED.put("sink.transactional-id-prefix", sink);
        UNSUPPORTED.put("sink.parallelism", sink);
    }

    private KafkaTableOptions() {}

    /** Refuses, in one line, an option of Flink's Kafka connector that is not taken. */
    static void refuseUnsupported(String sqlTable, Map<String, String> options) {
        for (String option : new TreeMap<>(options).keySet()) {
            String why = UNSUPPORTED.get(option);
            if (why == null && isFormatOption(option)) {
                why = "values are read by the project's readers (json: Spark's rules), not Flink's";
            }
            if (why != null) {
                throw refused(
                        sqlTable,
                        "option '"
                                + option
                                + "' of Flink's Kafka connector is not supported by sql --file's"
                                + " micro-batch Kafka source: "
                                + why);
            }
        }
    }

    private static boolean isFormatOption(String option) {
        for (String format : new String[] {"json.", "raw.", "value.json.", "value.raw."}) {
            if (option.startsWith(format)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The client settings: every {@code properties.*} option without its prefix, overridden by
     * {@code FLINKSS_KAFKA_*} of {@code env} as for {@code run kafka-bronze} (so that secrets need
     * not be written in the SQL file).
     */
    static Map<String, String> clientProperties(
            Map<String, String> tableOptions, Map<String, String> env) {
        Map<String, String> properties = new HashMap<>();
        tableOptions.forEach(
                (key, v) -> {
                    if (key.startsWith(PROPERTIES_PREFIX)) {
                        properties.put(key.substring(PROPERTIES_PREFIX.length()), v);
                    }
                });
        properties.putAll(KafkaClientProperties.load(null, env));
        return properties;
    }

    /** The value's format: {@code format} or {@code value.format}, json or raw. */
    static KafkaRowFormat.Value value(String sqlTable, ReadableConfig options) {
        String format = options.getOptional(FORMAT).orElse(null);
        String valueFormat = options.getOptional(VALUE_FORMAT).orElse(null);
        if (format != null && valueFormat != null) {
            throw refused(sqlTable, "give 'format' or 'value.format', not both");
        }
        String given = format != null ? format : valueFormat;
        if (given == null) {
            throw refused(sqlTable, "needs 'format' = 'json' (the course's events) or 'raw'");
        }
        return switch (given) {
            case "json" -> KafkaRowFormat.Value.JSON;
            // The column's type says STRING or BYTES (KafkaTableFactory).
            case "raw" -> KafkaRowFormat.Value.RAW_BYTES;
            default ->
                    throw refused(
                            sqlTable,
                            "format '"
                                    + given
                                    + "' is not read here: use 'json' (the course's events) or"
                                    + " 'raw'");
        };
    }

    /** What the micro-batch source reads, checked as {@code run kafka-bronze}'s options are. */
    static KafkaSourceOptions source(
            String sqlTable, ReadableConfig options, Map<String, String> properties) {
        String topic = options.getOptional(TOPIC).orElse(null);
        String pattern = options.getOptional(TOPIC_PATTERN).orElse(null);
        if ((topic == null) == (pattern == null)) {
            throw refused(sqlTable, "give exactly one of 'topic' and 'topic-pattern'");
        }
        KafkaSourceOptions.Builder builder =
                KafkaSourceOptions.builder()
                        .bootstrapServers(options.get(BOOTSTRAP_SERVERS))
                        .failOnDataLoss(options.get(FAIL_ON_DATA_LOSS))
                        .clientProperties(properties);
        if (topic != null) {
            builder.subscribe(String.join(",", topic.split(";")));
        } else {
            // Flink's topic-pattern matches whole names; the runtime's finds it anywhere.
            builder.subscribePattern("^(?:" + pattern + ")$");
        }
        builder.startingOffsets(startingOffsets(sqlTable, options, topic));
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw refused(sqlTable, e.getMessage());
        }
    }

    /** {@code scan.startup.mode} as Spark's {@code startingOffsets}. */
    private static String startingOffsets(String sqlTable, ReadableConfig options, String topic) {
        String mode = options.get(STARTUP_MODE);
        switch (mode) {
            case "earliest-offset":
                return "earliest";
            case "latest-offset":
                return "latest";
            case "specific-offsets":
                return specificOffsets(sqlTable, options, topic);
            default:
                throw refused(
                        sqlTable,
                        "'scan.startup.mode' = '"
                                + mode
                                + "' is not supported by sql --file's micro-batch Kafka source"
                                + " (offsets are kept in the query's checkpoint): use"
                                + " earliest-offset, latest-offset or specific-offsets");
        }
    }

    /** Flink's {@code partition:0,offset:42;partition:1,offset:300} as Spark's JSON. */
    private static String specificOffsets(String sqlTable, ReadableConfig options, String topic) {
        String offsets = options.getOptional(SPECIFIC_OFFSETS).orElse(null);
        if (offsets == null) {
            throw refused(
                    sqlTable,
                    "'scan.startup.mode' = 'specific-offsets' needs 'scan.startup.specific-offsets'"
                            + " (partition:0,offset:42;partition:1,offset:300)");
        }
        if (topic == null || topic.contains(";")) {
            throw refused(
                    sqlTable, "'scan.startup.specific-offsets' needs one 'topic' to apply to");
        }
        StringBuilder json = new StringBuilder("{\"").append(topic).append("\":{");
        String separator = "";
        for (String entry : offsets.split(";")) {
            String[] parts = entry.trim().split(",");
            if (parts.length != 2
                    || !parts[0].trim().startsWith("partition:")
                    || !parts[1].trim().startsWith("offset:")) {
                throw refused(
                        sqlTable,
                        "'scan.startup.specific-offsets' entry '"
                                + entry
                                + "' is not partition:N,offset:M");
            }
            String partition = parts[0].trim().substring("partition:".length()).trim();
            String offset = parts[1].trim().substring("offset:".length()).trim();
            if (!partition.matches("\\d+") || !offset.matches("\\d+")) {
                throw refused(
                        sqlTable,
                        "'scan.startup.specific-offsets' entry '"
                                + entry
                                + "' is not partition:N,offset:M");
            }
            json.append(separator).append('"').append(partition).append("\":").append(offset);
            separator = ",";
        }
        return json.append("}}").toString();
    }

    private static SqlTableException refused(String sqlTable, String what) {
        return new SqlTableException(sqlTable, "table '" + sqlTable + "': " + what);
    }
}
