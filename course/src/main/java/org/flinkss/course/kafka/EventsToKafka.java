package org.flinkss.course.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventJson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The course's generator into a topic: one record per event, key {@code event_id}, value the
 * event's JSON line, written by an idempotent producer with {@code acks=all} (no duplicates from
 * retries). It is the topic-side {@code land_events}; the landing itself is not transactional, so
 * run it once per batch.
 */
public final class EventsToKafka {

    private EventsToKafka() {}

    /**
     * Creates the topic with {@code partitions} partitions if it does not exist (empty: leave it to
     * the broker), writes the events and waits for every acknowledgement.
     *
     * @return the number of records written to each partition
     */
    public static Map<Integer, Integer> write(
            String bootstrapServers,
            String topic,
            Optional<Integer> partitions,
            Map<String, String> clientProperties,
            List<Event> events) {
        if (partitions.isPresent()) {
            createTopic(bootstrapServers, topic, partitions.get(), clientProperties);
        }
        Properties props = new Properties();
        props.putAll(clientProperties);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        Map<Integer, Integer> perPartition = new TreeMap<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>(events.size());
            for (Event e : events) {
                String key = e.eventId == null ? null : Long.toString(e.eventId);
                sent.add(producer.send(new ProducerRecord<>(topic, key, EventJson.toJson(e))));
            }
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                perPartition.merge(f.get(2, TimeUnit.MINUTES).partition(), 1, Integer::sum);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing to topic " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalStateException(
                    "writing events to topic '"
                            + topic
                            + "' at "
                            + bootstrapServers
                            + " failed: "
                            + cause,
                    cause);
        }
        return perPartition;
    }

    /** Creates a topic unless it exists (one replica unless the broker says otherwise). */
    public static void createTopic(
            String bootstrapServers,
            String topic,
            int partitions,
            Map<String, String> clientProperties) {
        Properties props = new Properties();
        props.putAll(clientProperties);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(props)) {
            try {
                admin.createTopics(
                                List.of(
                                        new NewTopic(
                                                topic, Optional.of(partitions), Optional.empty())))
                        .all()
                        .get(2, TimeUnit.MINUTES);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException(
                            "cannot create topic '"
                                    + topic
                                    + "' at "
                                    + bootstrapServers
                                    + ": "
                                    + e.getCause(),
                            e.getCause());
                }
            }
            awaitLeaders(admin, topic, System.nanoTime() + TimeUnit.MINUTES.toNanos(2));
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "topic '"
                            + topic
                            + "' at "
                            + bootstrapServers
                            + " is not ready: "
                            + e.getCause(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + topic, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "Kafka at "
                            + bootstrapServers
                            + " did not create topic '"
                            + topic
                            + "' within "
                            + Duration.ofMinutes(2)
                            + "; is the broker up?",
                    e);
        }
    }

    /**
     * Waits until every partition of a new topic has a leader that answers. A produce request that
     * arrives before was seen to be refused (NOT_LEADER_OR_FOLLOWER) and its idempotent retry
     * rejected as out of sequence until the delivery timeout; asking every leader for its end
     * offset avoids that. Right after the creation the admin client's metadata may not know the
     * topic yet ({@code UnknownTopicOrPartitionException}, seen in CI): a retriable answer is asked
     * again until the deadline.
     */
    private static void awaitLeaders(Admin admin, String topic, long deadlineNanos)
            throws ExecutionException, InterruptedException, TimeoutException {
        while (true) {
            try {
                Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
                admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(2, TimeUnit.MINUTES)
                        .get(topic)
                        .partitions()
                        .forEach(
                                p ->
                                        ends.put(
                                                new TopicPartition(topic, p.partition()),
                                                OffsetSpec.latest()));
                admin.listOffsets(ends).all().get(2, TimeUnit.MINUTES);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException)
                        || System.nanoTime() - deadlineNanos > 0) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
