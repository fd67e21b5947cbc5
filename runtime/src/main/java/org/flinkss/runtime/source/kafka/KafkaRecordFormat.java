package org.flinkss.runtime.source.kafka;

import org.apache.flink.api.common.typeinfo.TypeInformation;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SplitRecordReader;

import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Reads a {@link KafkaSplit} with a plain {@link KafkaConsumer}: {@code assign} the partition,
 * {@code seek} to where the split (or the restored reader) stands, and poll until the split's
 * {@code to} offset; records at or beyond it belong to a later batch and are left alone.
 *
 * <p>Isolation is {@code read_committed}: records of aborted transactions are skipped (their
 * offsets still count towards the split's end), and the planner's ends are last stable offsets, so
 * a split never waits for an open transaction. No consumer group is joined and no offset is
 * committed to Kafka: the offsets of record are those in the query's checkpoint.
 *
 * <p>A split whose offsets cannot be read for {@code default.api.timeout.ms} (60 s unless set in
 * the client settings), because the broker is down for instance, fails the job: Flink's restart
 * strategy then restarts it from the last checkpoint.
 */
public final class KafkaRecordFormat implements RecordFormat<KafkaRecord, KafkaSplit> {

    private static final long serialVersionUID = 1L;
    private static final Duration POLL = Duration.ofMillis(200);

    private final String bootstrapServers;
    private final HashMap<String, String> clientProperties;
    private final String clientIdPrefix;

    /**
     * A consumer per partition, kept from one split to the next of the same reader: a new one per
     * split costs a connection and a metadata round trip, which a real-time run's steps of a few
     * milliseconds cannot pay. Closed by {@link #close()}.
     */
    private transient Map<TopicPartition, KafkaConsumer<byte[], byte[]>> consumers;

    public KafkaRecordFormat(KafkaSourceOptions options, String clientIdPrefix) {
        this.bootstrapServers = options.bootstrapServers();
        this.clientProperties = new HashMap<>(options.clientProperties());
        this.clientIdPrefix = clientIdPrefix;
    }

    @Override
    public SplitRecordReader<KafkaRecord> open(KafkaSplit split) throws IOException {
        if (split.nextOffset() >= split.to()) {
            return new Done(split);
        }
        return new Reader(
                split, consumer(split), KafkaTimeouts.apiTimeoutMillis(clientProperties), this);
    }

    private KafkaConsumer<byte[], byte[]> consumer(KafkaSplit split) {
        TopicPartition tp = split.topicPartition();
        KafkaConsumer<byte[], byte[]> kept = consumers == null ? null : consumers.remove(tp);
        if (kept != null) {
            kept.seek(tp, split.nextOffset());
            return kept;
        }
        return newConsumer(split);
    }

    /** A split is done with its partition's consumer: the next split of the partition takes it. */
    private void release(TopicPartition tp, KafkaConsumer<byte[], byte[]> consumer) {
        if (consumers == null) {
            consumers = new HashMap<>();
        }
        KafkaConsumer<byte[], byte[]> other = consumers.put(tp, consumer);
        if (other != null && other != consumer) {
            other.close(Duration.ofSeconds(5));
        }
    }

    @Override
    public void close() {
        if (consumers != null) {
            consumers.values().forEach(c -> c.close(Duration.ofSeconds(5)));
            consumers.clear();
        }
    }

    private KafkaConsumer<byte[], byte[]> newConsumer(KafkaSplit split) {
        Properties props = new Properties();
        props.putAll(clientProperties);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        props.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        props.put(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                IsolationLevel.READ_COMMITTED.toString().toLowerCase(Locale.ROOT));
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // Offsets come from the checkpoint; one that is gone must fail, not silently jump.
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(
                ConsumerConfig.CLIENT_ID_CONFIG,
                clientIdPrefix + "-" + split.topic() + "-" + split.partition());
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        TopicPartition tp = split.topicPartition();
        consumer.assign(List.of(tp));
        consumer.seek(tp, split.nextOffset());
        return consumer;
    }

    @Override
    public long eventTime(KafkaRecord record) {
        // The Kafka source has no event time of its own; queries that need one parse it from the
        // value.
        return Long.MIN_VALUE;
    }

    @Override
    public TypeInformation<KafkaRecord> producedType() {
        return TypeInformation.of(KafkaRecord.class);
    }

    /**
     * A split with nothing (left) to read, such as a partition without new data in a query's first
     * batch.
     */
    private static final class Done implements SplitRecordReader<KafkaRecord> {
        private final KafkaSplit split;

        Done(KafkaSplit split) {
            this.split = split;
        }

        @Override
        public KafkaRecord next() {
            return null;
        }

        @Override
        public long position() {
            return split.position();
        }

        @Override
        public void close() {}
    }

    private static final class Reader implements SplitRecordReader<KafkaRecord> {
        private final KafkaSplit split;
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final TopicPartition tp;
        private final long timeoutMillis;
        private Iterator<ConsumerRecord<byte[], byte[]>> fetched = Collections.emptyIterator();
        private long next;
        private boolean done;
        private long lastProgressNanos = System.nanoTime();
        private final KafkaRecordFormat owner;

        Reader(
                KafkaSplit split,
                KafkaConsumer<byte[], byte[]> consumer,
                long timeoutMillis,
                KafkaRecordFormat owner) {
            this.owner = owner;
            this.split = split;
            this.consumer = consumer;
            this.tp = split.topicPartition();
            this.timeoutMillis = timeoutMillis;
            this.next = split.nextOffset();
        }

        @Override
        public KafkaRecord next() throws IOException {
            while (!done) {
                if (fetched.hasNext()) {
                    ConsumerRecord<byte[], byte[]> r = fetched.next();
                    if (r.offset() >= split.to()) {
                        done = true;
                        break;
                    }
                    if (r.offset() < next) {
                        continue;
                    }
                    next = r.offset() + 1;
                    return new KafkaRecord(
                            r.key(),
                            r.value(),
                            r.topic(),
                            r.partition(),
                            r.offset(),
                            r.timestamp(),
                            r.timestampType().id);
                }
                // Transaction markers and aborted records move the position without a record.
                long position = consumer.position(tp, Duration.ofMillis(timeoutMillis));
                if (position >= split.to() || next >= split.to()) {
                    done = true;
                    break;
                }
                var records = consumer.poll(POLL);
                if (!records.isEmpty()
                        || consumer.position(tp, Duration.ofMillis(timeoutMillis)) > position) {
                    lastProgressNanos = System.nanoTime();
                } else if (System.nanoTime() - lastProgressNanos > timeoutMillis * 1_000_000) {
                    throw new IOException(
                            "cannot read "
                                    + split.describe()
                                    + " (batch "
                                    + split.batchId()
                                    + "): no progress at offset "
                                    + position
                                    + " for "
                                    + Duration.ofMillis(timeoutMillis)
                                    + " (default.api.timeout.ms); is the broker up?");
                }
                fetched = records.records(tp).iterator();
            }
            return null;
        }

        @Override
        public long position() {
            return next - split.from();
        }

        @Override
        public void close() {
            owner.release(tp, consumer);
        }
    }
}
