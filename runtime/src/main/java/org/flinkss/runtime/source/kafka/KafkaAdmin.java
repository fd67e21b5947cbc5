package org.flinkss.runtime.source.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;

import org.flinkss.runtime.PermanentFailure;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The metadata a planner needs, through Kafka's {@link Admin} client: partitions of a subscription
 * and their offsets. One instance per refresh, closed after it: an enumerator has no close hook for
 * its planner, and an idle client would keep reconnecting after the job ends.
 */
final class KafkaAdmin implements AutoCloseable {

    private final Admin admin;
    private final String bootstrapServers;
    private final long timeoutMillis;

    /**
     * Whether the servers answered the source before (in this job, across its restarts) or this
     * client: when they stop answering, the broker went away (a restart, a network cut), which the
     * job's restart strategy rides out; servers that never answered are a wrong address or a broker
     * that is down, which no restart fixes.
     */
    private volatile boolean answered;

    /**
     * @param answeredBefore whether these servers answered the source before, in this job
     */
    public KafkaAdmin(
            String bootstrapServers, Map<String, String> clientProperties, boolean answeredBefore) {
        this.answered = answeredBefore;
        Properties props = new Properties();
        props.putAll(clientProperties);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "flinkss-planner");
        this.bootstrapServers = bootstrapServers;
        this.timeoutMillis = KafkaTimeouts.apiTimeoutMillis(clientProperties);
        try {
            this.admin = Admin.create(props);
        } catch (KafkaException e) {
            if (e.getCause() instanceof ConfigException) {
                throw new PermanentFailure(
                        "the Kafka client settings for "
                                + bootstrapServers
                                + " are wrong, which no restart can fix: "
                                + e.getCause().getMessage()
                                + " (fix --kafka-properties or the FLINKSS_KAFKA_* variables)",
                        e);
            }
            throw e;
        }
    }

    /**
     * Spark's {@code fetchOffset.numRetries} and {@code fetchOffset.retryIntervalMs}: how often a
     * subscription's topics are looked for before a missing one fails the run (a topic created a
     * moment ago may not be known to every broker yet).
     */
    static final int TOPIC_ATTEMPTS = 3;

    static final Duration TOPIC_RETRY_INTERVAL = Duration.ofSeconds(1);

    /**
     * The partitions a source reads now, sorted. As in Spark (3.4 and later, whose offsets come
     * from Kafka's admin client): every topic of {@code subscribe} and {@code assign} must exist,
     * else the run fails with no restart; {@code subscribePattern} reads the topics in which the
     * pattern is found (anywhere in the name, Scala's {@code findFirstIn}), none if there are none;
     * partitions of {@code assign} that a topic does not have are left out.
     *
     * @throws PermanentFailure if a topic of {@code subscribe} or {@code assign} does not exist
     */
    public List<TopicPartition> partitions(KafkaSourceOptions options) throws IOException {
        Set<String> topics = new TreeSet<>();
        for (int attempt = 1; ; attempt++) {
            Set<String> existing =
                    get(
                            admin.listTopics(new ListTopicsOptions().listInternal(false)).names(),
                            "list topics");
            topics.clear();
            Set<String> missing = new TreeSet<>();
            for (String topic : options.namedTopics()) {
                (existing.contains(topic) ? topics : missing).add(topic);
            }
            if (options.strategy() == KafkaSourceOptions.Strategy.SUBSCRIBE_PATTERN) {
                existing.stream().filter(options::subscribes).forEach(topics::add);
            }
            if (missing.isEmpty()) {
                break;
            }
            if (attempt >= TOPIC_ATTEMPTS) {
                throw missingTopics(options, missing);
            }
            try {
                Thread.sleep(TOPIC_RETRY_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while looking for topics " + missing, e);
            }
        }
        List<TopicPartition> partitions = new ArrayList<>();
        if (topics.isEmpty()) {
            return partitions;
        }
        Map<String, TreeSet<Integer>> assigned =
                options.strategy() == KafkaSourceOptions.Strategy.ASSIGN
                        ? options.assigned()
                        : Map.of();
        Map<String, TopicDescription> descriptions =
                get(admin.describeTopics(topics).allTopicNames(), "describe topics " + topics);
        for (String topic : topics) {
            for (TopicPartitionInfo p : descriptions.get(topic).partitions()) {
                if (options.strategy() != KafkaSourceOptions.Strategy.ASSIGN
                        || assigned.get(topic).contains(p.partition())) {
                    partitions.add(new TopicPartition(topic, p.partition()));
                }
            }
        }
        return partitions;
    }

    private PermanentFailure missingTopics(KafkaSourceOptions options, Set<String> missing) {
        return new PermanentFailure(
                (missing.size() == 1
                                ? "topic '" + missing.iterator().next() + "' does not exist"
                                : "topics " + missing + " do not exist")
                        + " on Kafka at "
                        + bootstrapServers
                        + " (looked for "
                        + TOPIC_ATTEMPTS
                        + " times, "
                        + TOPIC_RETRY_INTERVAL.toSeconds()
                        + " s apart), so "
                        + options.description()
                        + " has nothing to read and no restart can fix it: create "
                        + (missing.size() == 1 ? "it" : "them")
                        + " (kafka-topics.sh --create --topic ...), or name the right topic;"
                        + " --subscribe-pattern reads whichever topics exist");
    }

    /** The last stable offsets: what a {@code read_committed} consumer can read up to now. */
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions)
            throws IOException {
        return offsets(partitions, tp -> OffsetSpec.latest(), "end offsets");
    }

    /**
     * The end offsets as {@link #endOffsets}, if Kafka gives them within {@code wait}; empty if it
     * does not, or fails. For a real-time refresh between full ones: a partition whose topic was
     * deleted is retried by Kafka's client until its whole timeout, where a full refresh, which
     * lists the topics first, finds it gone at once.
     */
    public Optional<Map<TopicPartition, Long>> endOffsetsWithin(
            Collection<TopicPartition> partitions, Duration wait) {
        ListOffsetsOptions options =
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)
                        .timeoutMs((int) wait.toMillis());
        try {
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> result =
                    admin.listOffsets(request(partitions, tp -> OffsetSpec.latest()), options)
                            .all()
                            .get(wait.toMillis(), TimeUnit.MILLISECONDS);
            answered = true;
            return Optional.of(offsets(result));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | TimeoutException e) {
            return Optional.empty();
        }
    }

    public Map<TopicPartition, Long> earliestOffsets(Collection<TopicPartition> partitions)
            throws IOException {
        return offsets(partitions, tp -> OffsetSpec.earliest(), "earliest offsets");
    }

    private Map<TopicPartition, Long> offsets(
            Collection<TopicPartition> partitions,
            Function<TopicPartition, OffsetSpec> spec,
            String what)
            throws IOException {
        if (partitions.isEmpty()) {
            return new HashMap<>();
        }
        return offsets(
                get(
                        admin.listOffsets(
                                        request(partitions, spec),
                                        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                                .all(),
                        what + " of " + partitions));
    }

    private static Map<TopicPartition, OffsetSpec> request(
            Collection<TopicPartition> partitions, Function<TopicPartition, OffsetSpec> spec) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(tp -> request.put(tp, spec.apply(tp)));
        return request;
    }

    private static Map<TopicPartition, Long> offsets(
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> result) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        result.forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }

    private <T> T get(KafkaFuture<T> future, String what) throws IOException {
        try {
            T answer = future.get(timeoutMillis, TimeUnit.MILLISECONDS);
            answered = true;
            return answer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(
                    "interrupted while asking Kafka at " + bootstrapServers + " to " + what, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw noAnswer(what, cause);
            }
            if (cause instanceof AuthenticationException
                    || cause instanceof AuthorizationException) {
                throw new PermanentFailure(
                        "Kafka at "
                                + bootstrapServers
                                + " refused to "
                                + what
                                + " ("
                                + cause.getMessage()
                                + "), so no restart can fix it: check the security settings of"
                                + " the client (--kafka-properties) and the principal's ACLs",
                        cause);
            }
            throw new IOException(
                    "Kafka at " + bootstrapServers + " could not " + what + ": " + cause, cause);
        } catch (TimeoutException e) {
            throw noAnswer(what, e);
        }
    }

    /**
     * Kafka's client already retried for the whole timeout: if the servers never answered, a
     * restart would only wait again; if they did, the broker went away and a restart may find it
     * back.
     */
    private IOException noAnswer(String what, Throwable cause) {
        if (answered) {
            return new IOException(
                    "Kafka at "
                            + bootstrapServers
                            + ", which answered before, did not answer within "
                            + Duration.ofMillis(timeoutMillis)
                            + " ("
                            + what
                            + "): the job restarts and asks again",
                    cause);
        }
        throw new PermanentFailure(
                "Kafka at "
                        + bootstrapServers
                        + " did not answer within "
                        + Duration.ofMillis(timeoutMillis)
                        + " ("
                        + what
                        + "), so no restart can fix it: is the broker up, and are the bootstrap"
                        + " servers and security settings right? (the wait is"
                        + " default.api.timeout.ms of the client settings)",
                cause);
    }

    /** Whether the servers answered this client, or the source before it. */
    public boolean answered() {
        return answered;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
