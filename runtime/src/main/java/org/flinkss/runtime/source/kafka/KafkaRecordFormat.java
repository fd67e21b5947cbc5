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
    private transient Map<TopicPartition, Kept> consumers;

    /**
     * A partition's consumer between two splits, with what its last poll fetched beyond the split
     * that ended: the next split of the partition, which starts where that one ended, reads them
     * first instead of seeking back. A seek back throws the fetched records away and waits for the
     * consumer's fetch in flight (up to {@code fetch.max.wait.ms}, 500 ms, when it asked for
     * offsets not written yet) before it can fetch them again: a real-time run's step paid that.
     */
    private static final class Kept {
        final KafkaConsumer<byte[], byte[]> consumer;

        /** The offset the next split must start at to read on without a seek. */
        final long from;

        /** Records at or after {@link #from}, in order, as the consumer returned them. */
        final Iterator<ConsumerRecord<byte[], byte[]>> fetched;

        Kept(
                KafkaConsumer<byte[], byte[]> consumer,
                long from,
                Iterator<ConsumerRecord<byte[], byte[]>> fetched) {
            this.consumer = consumer;
            this.from = from;
            this.fetched = fetched;
        }
    }

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

    /** The partition's consumer at the split's start, with records already fetched from there. */
    private Kept consumer(KafkaSplit split) {
        TopicPartition tp = split.topicPartition();
        Kept kept = consumers == null ? null : consumers.remove(tp);
        if (kept == null) {
            return new Kept(newConsumer(split), split.nextOffset(), Collections.emptyIterator());
        }
        if (kept.from == split.nextOffset()) {
            return kept;
        }
        kept.consumer.seek(tp, split.nextOffset());
        return new Kept(kept.consumer, split.nextOffset(), Collections.emptyIterator());
    }

    /**
     * A split is done with its partition's consumer: the next split of the partition takes it, and
     * the records fetched from {@code from} on.
     */
    private void release(TopicPartition tp, Kept kept) {
        if (consumers == null) {
            consumers = new HashMap<>();
        }
        Kept other = consumers.put(tp, kept);
        if (other != null && other.consumer != kept.consumer) {
            other.consumer.close(Duration.ofSeconds(5));
        }
    }

    @Override
    public void close() {
        if (consumers != null) {
            consumers.values().forEach(k -> k.consumer.close(Duration.ofSeconds(5)));
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

    private static <T> Iterator<T> prepend(T first, Iterator<T> rest) {
        return new Iterator<>() {
            private boolean firstTaken;

            @Override
            public boolean hasNext() {
                return !firstTaken || rest.hasNext();
            }

            @Override
            public T next() {
                if (!firstTaken) {
                    firstTaken = true;
                    return first;
                }
                return rest.next();
            }
        };
    }

    private static final class Reader implements SplitRecordReader<KafkaRecord> {
        private final KafkaSplit split;
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final TopicPartition tp;
        private final long timeoutMillis;
        private Iterator<ConsumerRecord<byte[], byte[]>> fetched;

        /** The first record at or beyond the split's end, fetched: the next split's first. */
        private ConsumerRecord<byte[], byte[]> beyond;

        private long next;
        private boolean done;
        private long lastProgressNanos = System.nanoTime();
        private final KafkaRecordFormat owner;

        Reader(KafkaSplit split, Kept kept, long timeoutMillis, KafkaRecordFormat owner) {
            this.owner = owner;
            this.split = split;
            this.consumer = kept.consumer;
            this.fetched = kept.fetched;
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
                        beyond = r;
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
            if (!done) {
                // Closed before its end (a checkpoint's copy, a failure): the next split seeks.
                owner.release(tp, new Kept(consumer, -1, Collections.emptyIterator()));
            } else if (beyond != null) {
                owner.release(tp, new Kept(consumer, split.to(), prepend(beyond, fetched)));
            } else {
                owner.release(tp, new Kept(consumer, split.to(), fetched));
            }
        }
    }
}
