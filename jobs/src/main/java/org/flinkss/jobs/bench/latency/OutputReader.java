package org.flinkss.jobs.bench.latency;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads a query's output topic from its beginning on a thread of its own, with the isolation level
 * of the delivery measured ({@code read_uncommitted} for at-least-once, {@code read_committed} for
 * exactly-once), and hands every record to the tally with the moment the poll returned it. No
 * consumer group: the partitions are assigned, nothing is committed to Kafka.
 */
final class OutputReader implements AutoCloseable {

    private final KafkaConsumer<String, String> consumer;
    private final OutputTally tally;
    private final Thread thread;
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private volatile boolean running = true;
    private volatile long records;

    OutputReader(String bootstrapServers, String topic, boolean readCommitted, OutputTally tally) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                (readCommitted ? "read_committed" : "read_uncommitted").toLowerCase(Locale.ROOT));
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // A fetch returns as soon as one byte is there; this only bounds an empty wait.
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20");
        this.consumer = new KafkaConsumer<>(props);
        List<TopicPartition> partitions =
                consumer.partitionsFor(topic, Duration.ofMinutes(1)).stream()
                        .map(p -> new TopicPartition(topic, p.partition()))
                        .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        this.tally = tally;
        this.thread = new Thread(this::poll, "bench-latency-reader-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    private void poll() {
        try {
            while (running) {
                ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(50));
                long now = System.currentTimeMillis();
                synchronized (tally) {
                    for (ConsumerRecord<String, String> r : batch) {
                        tally.read(r.key(), r.value(), r.timestamp(), now);
                    }
                }
                records += batch.count();
            }
        } catch (RuntimeException e) {
            failure.set(e);
        } finally {
            consumer.close();
        }
    }

    /** How many records were read so far; throws what stopped the reader, if anything did. */
    long records() {
        RuntimeException e = failure.get();
        if (e != null) {
            throw new IllegalStateException("reading the output topic failed: " + e, e);
        }
        return records;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(Duration.ofMinutes(1).toMillis());
    }
}
