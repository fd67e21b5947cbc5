package org.flinkss.runtime.source.kafka;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.apache.kafka.common.TopicPartition;

import org.flinkss.runtime.source.SerializerVersions;
import org.flinkss.runtime.source.WorkSplit;

import java.io.IOException;

/**
 * The offsets {@code [from, to)} of one topic-partition that one micro-batch reads. Its {@link
 * #position()} counts the offsets already consumed past {@code from}: a restored reader seeks to
 * {@code from + position}. Offsets are not records one for one (transaction markers and aborted
 * records take offsets too), so the position is an offset distance, not a row count.
 */
public final class KafkaSplit implements WorkSplit {

    private final String topic;
    private final int partition;
    private final long from;
    private final long to;
    private final long batchId;
    private final long position;

    public KafkaSplit(
            String topic, int partition, long from, long to, long batchId, long position) {
        if (to < from) {
            throw new IllegalArgumentException(
                    "split " + topic + "-" + partition + ": to " + to + " < from " + from);
        }
        this.topic = topic;
        this.partition = partition;
        this.from = from;
        this.to = to;
        this.batchId = batchId;
        this.position = position;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }

    /** The first offset of the split. */
    public long from() {
        return from;
    }

    /** The offset after the last one of the split (exclusive). */
    public long to() {
        return to;
    }

    /** Where a reader starts: {@code from + position}. */
    public long nextOffset() {
        return from + position;
    }

    @Override
    public String splitId() {
        return topic + "-" + partition + "@" + batchId;
    }

    @Override
    public long batchId() {
        return batchId;
    }

    @Override
    public long position() {
        return position;
    }

    @Override
    public KafkaSplit withPosition(long newPosition) {
        return new KafkaSplit(topic, partition, from, to, batchId, newPosition);
    }

    @Override
    public String describe() {
        return "topic " + topic + " partition " + partition + " offsets [" + from + ", " + to + ")";
    }

    @Override
    public String toString() {
        return "KafkaSplit{"
                + topic
                + "-"
                + partition
                + " ["
                + from
                + ", "
                + to
                + "), batch "
                + batchId
                + ", position "
                + position
                + '}';
    }

    /** Serializes Kafka splits in checkpoints. */
    public static final class Serializer implements SimpleVersionedSerializer<KafkaSplit> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(KafkaSplit split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(64);
            out.writeUTF(split.topic);
            out.writeInt(split.partition);
            out.writeLong(split.from);
            out.writeLong(split.to);
            out.writeLong(split.batchId);
            out.writeLong(split.position);
            return out.getCopyOfBuffer();
        }

        @Override
        public KafkaSplit deserialize(int version, byte[] serialized) throws IOException {
            SerializerVersions.require("KafkaSplit", getVersion(), version);
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            return new KafkaSplit(
                    in.readUTF(),
                    in.readInt(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong());
        }
    }
}
