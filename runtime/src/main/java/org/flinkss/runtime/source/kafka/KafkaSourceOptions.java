package org.flinkss.runtime.source.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.common.utils.Utils;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What a Kafka micro-batch source reads, with Spark's option names: bootstrap servers, exactly one
 * of {@code subscribe} (topics, comma-separated), {@code subscribePattern} (a Java regex found
 * anywhere in a topic's name, as Spark's admin-based offset fetching does: anchor it, {@code
 * ^events$}, to match whole names) or {@code assign} (JSON {@code {"topic":[0,1]}}), {@code
 * startingOffsets}, {@code failOnDataLoss}, and the client settings of {@link
 * KafkaClientProperties}. {@link Builder#build()} refuses a bad combination before any data moves.
 * The rate limit ({@code maxOffsetsPerTrigger}) is the run's, as every source's: {@code ReadLimit}.
 */
public final class KafkaSourceOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    /** How partitions are chosen: Spark's consumer strategies. */
    public enum Strategy {
        SUBSCRIBE("subscribe"),
        SUBSCRIBE_PATTERN("subscribePattern"),
        ASSIGN("assign");

        final String option;

        Strategy(String option) {
            this.option = option;
        }
    }

    final String bootstrapServers;
    final Strategy strategy;
    final List<String> topics;
    final String pattern;
    final TreeMap<String, TreeSet<Integer>> assigned;
    final StartingOffsets startingOffsets;
    final boolean failOnDataLoss;
    final HashMap<String, String> clientProperties;

    private KafkaSourceOptions(
            Builder b,
            Strategy strategy,
            List<String> topics,
            TreeMap<String, TreeSet<Integer>> assigned,
            StartingOffsets startingOffsets,
            String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
        this.strategy = strategy;
        this.topics = topics;
        this.pattern = b.subscribePattern;
        this.assigned = assigned;
        this.startingOffsets = startingOffsets;
        this.failOnDataLoss = b.failOnDataLoss;
        this.clientProperties = new HashMap<>(b.clientProperties);
    }

    public static Builder builder() {
        return new Builder();
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public Strategy strategy() {
        return strategy;
    }

    public StartingOffsets startingOffsets() {
        return startingOffsets;
    }

    public Map<String, String> clientProperties() {
        return clientProperties;
    }

    /** The partitions of {@code assign}, by topic (empty for the other strategies). */
    public Map<String, TreeSet<Integer>> assigned() {
        return assigned;
    }

    /**
     * The topics the options name ({@code subscribe}'s, {@code assign}'s), which must exist; none
     * for {@code subscribePattern}.
     */
    public Set<String> namedTopics() {
        switch (strategy) {
            case SUBSCRIBE:
                return new TreeSet<>(topics);
            case ASSIGN:
                return new TreeSet<>(assigned.keySet());
            default:
                return Set.of();
        }
    }

    /** Whether the source reads (some partitions of) this topic. */
    public boolean subscribes(String topic) {
        switch (strategy) {
            case SUBSCRIBE:
                return topics.contains(topic);
            case SUBSCRIBE_PATTERN:
                return Pattern.compile(pattern).matcher(topic).find();
            default:
                return assigned.containsKey(topic);
        }
    }

    /**
     * Spark's description of the source, {@code KafkaV2[Subscribe[events]]}: it names the topics,
     * so it is part of the query's identity, and another topic needs another checkpoint.
     */
    public String description() {
        switch (strategy) {
            case SUBSCRIBE:
                return "KafkaV2[Subscribe[" + String.join(",", topics) + "]]";
            case SUBSCRIBE_PATTERN:
                return "KafkaV2[SubscribePattern[" + pattern + "]]";
            default:
                List<String> partitions = new ArrayList<>();
                assigned.forEach((topic, ps) -> ps.forEach(p -> partitions.add(topic + "-" + p)));
                return "KafkaV2[Assign[" + String.join(", ", partitions) + "]]";
        }
    }

    @Override
    public String toString() {
        return description()
                + " at "
                + bootstrapServers
                + ", startingOffsets "
                + startingOffsets
                + ", "
                + KafkaClientProperties.describe(clientProperties);
    }

    /**
     * Refuses bootstrap servers that are not {@code host:port[,host:port]} before the job starts:
     * Kafka's clients would only say so inside the job, where the restart strategy retries it.
     */
    public static void checkBootstrapServers(String servers) {
        for (String server : servers.split(",")) {
            String s = server.trim();
            if (Utils.getHost(s) == null || Utils.getPort(s) == null) {
                throw new IllegalArgumentException(
                        "bootstrap server '"
                                + s
                                + "' is not host:port (bootstrap servers: "
                                + servers
                                + ")");
            }
        }
    }

    /** Builds {@link KafkaSourceOptions}; {@link #build()} checks them all. */
    public static final class Builder {
        private String bootstrapServers;
        private String subscribe;
        private String subscribePattern;
        private String assign;
        private String startingOffsets;
        private boolean failOnDataLoss = true;
        private Map<String, String> clientProperties = new HashMap<>();

        /**
         * {@code host:port[,host:port]}; if not set, {@code bootstrap.servers} of the client
         * settings.
         */
        public Builder bootstrapServers(@Nullable String servers) {
            this.bootstrapServers = servers;
            return this;
        }

        public Builder subscribe(@Nullable String topics) {
            this.subscribe = topics;
            return this;
        }

        public Builder subscribePattern(@Nullable String pattern) {
            this.subscribePattern = pattern;
            return this;
        }

        public Builder assign(@Nullable String json) {
            this.assign = json;
            return this;
        }

        /** {@code earliest}, {@code latest} (the default, as in Spark) or JSON. */
        public Builder startingOffsets(@Nullable String offsets) {
            this.startingOffsets = offsets;
            return this;
        }

        /**
         * Spark's {@code failOnDataLoss}: fail when offsets to read are gone (retention, a
         * recreated topic).
         */
        public Builder failOnDataLoss(boolean fail) {
            this.failOnDataLoss = fail;
            return this;
        }

        /** Security and other client settings, from {@link KafkaClientProperties#load}. */
        public Builder clientProperties(Map<String, String> properties) {
            this.clientProperties = new HashMap<>(properties);
            return this;
        }

        public KafkaSourceOptions build() {
            List<String> given = new ArrayList<>();
            if (subscribe != null) {
                given.add("subscribe (--subscribe)");
            }
            if (subscribePattern != null) {
                given.add("subscribePattern (--subscribe-pattern)");
            }
            if (assign != null) {
                given.add("assign (--assign)");
            }
            if (given.size() != 1) {
                throw new IllegalArgumentException(
                        "a Kafka source takes exactly one of subscribe (--subscribe T),"
                            + " subscribePattern (--subscribe-pattern P) or assign (--assign JSON);"
                            + " "
                                + (given.isEmpty()
                                        ? "none was given"
                                        : "got " + String.join(" and ", given)));
            }
            String servers =
                    bootstrapServers != null
                            ? bootstrapServers
                            : clientProperties.get("bootstrap.servers");
            if (servers == null || servers.isBlank()) {
                throw new IllegalArgumentException(
                        "a Kafka source needs bootstrap servers: --bootstrap-servers H:P"
                                + " (or bootstrap.servers in the Kafka properties file)");
            }
            checkBootstrapServers(servers);
            Strategy strategy;
            List<String> topics = List.of();
            TreeMap<String, TreeSet<Integer>> assigned = new TreeMap<>();
            if (subscribe != null) {
                strategy = Strategy.SUBSCRIBE;
                topics = new ArrayList<>();
                for (String t : subscribe.split(",")) {
                    if (!t.isBlank()) {
                        topics.add(t.trim());
                    }
                }
                if (topics.isEmpty()) {
                    throw new IllegalArgumentException(
                            "subscribe '" + subscribe + "' names no topic");
                }
                topics = List.copyOf(topics);
            } else if (subscribePattern != null) {
                strategy = Strategy.SUBSCRIBE_PATTERN;
                if (subscribePattern.isBlank()) {
                    throw new IllegalArgumentException("subscribePattern is empty");
                }
                try {
                    Pattern.compile(subscribePattern);
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException(
                            "subscribePattern '"
                                    + subscribePattern
                                    + "' is not a Java regex: "
                                    + e.getDescription());
                }
            } else {
                strategy = Strategy.ASSIGN;
                assigned = parseAssign(assign);
            }
            StartingOffsets starting =
                    startingOffsets == null
                            ? StartingOffsets.latest()
                            : StartingOffsets.parse(startingOffsets);
            KafkaSourceOptions options =
                    new KafkaSourceOptions(
                            this, strategy, topics, assigned, starting, servers.trim());
            if (starting.isSpecific()) {
                for (Map.Entry<String, TreeMap<Integer, Long>> topic :
                        starting.specific().entrySet()) {
                    if (!options.subscribes(topic.getKey())) {
                        throw new IllegalArgumentException(
                                "startingOffsets names topic '"
                                        + topic.getKey()
                                        + "', which "
                                        + options.description()
                                        + " does not read");
                    }
                    if (strategy == Strategy.ASSIGN
                            && !assigned.get(topic.getKey())
                                    .containsAll(topic.getValue().keySet())) {
                        throw new IllegalArgumentException(
                                "startingOffsets names partitions "
                                        + topic.getValue().keySet()
                                        + " of '"
                                        + topic.getKey()
                                        + "', but assign has "
                                        + assigned.get(topic.getKey()));
                    }
                }
            }
            return options;
        }

        private static TreeMap<String, TreeSet<Integer>> parseAssign(String json) {
            String example = " (expected e.g. {\"events\":[0,1]})";
            TreeMap<String, TreeSet<Integer>> assigned = new TreeMap<>();
            JsonNode root;
            try {
                root = new ObjectMapper().readTree(json);
            } catch (IOException e) {
                throw new IllegalArgumentException("assign is not valid JSON: " + json + example);
            }
            if (root == null || !root.isObject() || root.isEmpty()) {
                throw new IllegalArgumentException(
                        "assign must be a JSON object of topic -> [partitions]: " + json + example);
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> topic = it.next();
                if (!topic.getValue().isArray() || topic.getValue().isEmpty()) {
                    throw new IllegalArgumentException(
                            "assign: topic '"
                                    + topic.getKey()
                                    + "' needs a non-empty array of partitions"
                                    + example);
                }
                TreeSet<Integer> partitions = new TreeSet<>();
                for (JsonNode p : topic.getValue()) {
                    if (!p.canConvertToInt() || !p.isIntegralNumber() || p.asInt() < 0) {
                        throw new IllegalArgumentException(
                                "assign: partition "
                                        + p
                                        + " of '"
                                        + topic.getKey()
                                        + "' is not a partition number"
                                        + example);
                    }
                    partitions.add(p.asInt());
                }
                assigned.put(topic.getKey(), partitions);
            }
            return assigned;
        }
    }
}
