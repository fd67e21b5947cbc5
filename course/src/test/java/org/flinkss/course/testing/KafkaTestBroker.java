package org.flinkss.course.testing;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.kafka.EventsToKafka;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A real Kafka 4.1 broker in the test JVM: {@link KafkaClusterTestKit} with one combined (broker +
 * controller) KRaft node, on a free port of 127.0.0.1, with one-node settings for the transaction
 * and offsets topics. {@link #restartBroker} stops and starts the broker on the same port, as a
 * real restart would.
 */
public final class KafkaTestBroker implements AutoCloseable {

    private final KafkaClusterTestKit cluster;

    private KafkaTestBroker(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    /**
     * One broker for a test class: {@code @RegisterExtension static final KafkaTestBroker.PerClass
     * KAFKA = new KafkaTestBroker.PerClass();}, started before its tests and closed after them.
     */
    public static final class PerClass implements BeforeAllCallback, AfterAllCallback {
        private KafkaTestBroker broker;

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            broker = start();
        }

        @Override
        public void afterAll(ExtensionContext context) throws Exception {
            if (broker != null) {
                broker.close();
                broker = null;
            }
        }

        public KafkaTestBroker broker() {
            if (broker == null) {
                throw new IllegalStateException(
                        "the Kafka test broker is not running: register PerClass as a static"
                                + " extension");
            }
            return broker;
        }
    }

    public static KafkaTestBroker start() throws Exception {
        // The test kit makes its log folders under java.io.tmpdir (target/tmp), which may not exist
        // yet.
        Files.createDirectories(Paths.get(System.getProperty("java.io.tmpdir")));
        TestKitNodes nodes =
                new TestKitNodes.Builder()
                        .setCombined(true)
                        .setNumBrokerNodes(1)
                        .setNumControllerNodes(1)
                        .build();
        KafkaClusterTestKit cluster =
                new KafkaClusterTestKit.Builder(nodes)
                        .setConfigProp("offsets.topic.replication.factor", "1")
                        .setConfigProp("transaction.state.log.replication.factor", "1")
                        .setConfigProp("transaction.state.log.min.isr", "1")
                        .setConfigProp("group.initial.rebalance.delay.ms", "0")
                        .setConfigProp("num.partitions", "1")
                        .build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
        return new KafkaTestBroker(cluster);
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** Creates a topic and waits until every partition has its leader. */
    public void createTopic(String topic, int partitions) {
        EventsToKafka.createTopic(bootstrapServers(), topic, partitions, Map.of());
    }

    /** The course's events {@code start .. start + n - 1} into a topic; records per partition. */
    public Map<Integer, Integer> produceEvents(String topic, long start, int n) {
        return EventsToKafka.write(
                bootstrapServers(),
                topic,
                Optional.empty(),
                Map.of(),
                EventGenerator.events(start, n));
    }

    /** One record with any value, e.g. one that is not an event. */
    public void produce(String topic, String key, byte[] value) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(
                            new ProducerRecord<>(
                                    topic,
                                    key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                                    value))
                    .get(1, TimeUnit.MINUTES);
        }
    }

    /** {@code n} records with no key into one partition of {@code topic}, each acknowledged. */
    public void produce(String topic, int partition, int n) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < n; i++) {
                byte[] value = ("record " + i).getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(topic, partition, null, value))
                        .get(1, TimeUnit.MINUTES);
            }
        }
    }

    private KafkaProducer<byte[], byte[]> producer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    /**
     * Every record a {@code read_committed} consumer sees in the topic, from the beginning up to
     * the last stable offsets of now (records of open or aborted transactions are not included).
     */
    public List<ConsumerRecord<byte[], byte[]>> readCommitted(String topic) {
        return read(topic, "read_committed");
    }

    /**
     * {@link #readCommitted}, once a {@code read_committed} reader sees {@code n} records or more,
     * or after 30 s: what a run committed last is visible a moment after the run ends, since Kafka
     * writes a transaction's commit markers to its partitions after the writer's commit returned (a
     * reader right after the run saw one partition's records of two, 51 of 100). The caller asserts
     * on the records returned: fewer than {@code n}, or more, fails there.
     */
    public List<ConsumerRecord<byte[], byte[]>> readCommittedOnceVisible(String topic, int n)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<ConsumerRecord<byte[], byte[]>> records = readCommitted(topic);
        while (records.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(50);
            records = readCommitted(topic);
        }
        return records;
    }

    /** Every record up to the end of the topic, those of aborted transactions included. */
    public List<ConsumerRecord<byte[], byte[]>> readUncommitted(String topic) {
        return read(topic, "read_uncommitted");
    }

    private List<ConsumerRecord<byte[], byte[]>> read(String topic, String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        props.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofMinutes(1))
                    .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofMinutes(1));
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "could not read " + topic + " up to " + end + " within a minute");
                }
                consumer.poll(Duration.ofMillis(200))
                        .forEach(
                                r -> {
                                    if (r.offset()
                                            < end.get(
                                                    new TopicPartition(r.topic(), r.partition()))) {
                                        records.add(r);
                                    }
                                });
            }
        }
        return records;
    }

    /**
     * Stops the broker (the controller keeps running), waits {@code down}, and starts it again on
     * the same port.
     */
    public void restartBroker(Duration down) throws Exception {
        int id = cluster.brokers().keySet().iterator().next();
        cluster.brokers().get(id).shutdown();
        Thread.sleep(down.toMillis());
        cluster.brokers().get(id).startup();
        cluster.waitForReadyBrokers();
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
