package org.flinkss.runtime.source.kafka;

import java.util.Arrays;
import java.util.Objects;

/**
 * One Kafka record as Spark's Kafka source shows it: {@code key}, {@code value} (bytes, either may
 * be null), {@code topic}, {@code partition}, {@code offset}, {@code timestamp} (epoch
 * milliseconds) and {@code timestampType} (0 create time, 1 log append time, -1 none). A Flink POJO
 * (public fields, no-arg constructor).
 */
public final class KafkaRecord {

    public byte[] key;
    public byte[] value;
    public String topic;
    public int partition;
    public long offset;
    public long timestamp;
    public int timestampType;

    public KafkaRecord() {}

    public KafkaRecord(
            byte[] key,
            byte[] value,
            String topic,
            int partition,
            long offset,
            long timestamp,
            int timestampType) {
        this.key = key;
        this.value = value;
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.timestampType = timestampType;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof KafkaRecord)) {
            return false;
        }
        KafkaRecord r = (KafkaRecord) o;
        return partition == r.partition
                && offset == r.offset
                && timestamp == r.timestamp
                && timestampType == r.timestampType
                && Arrays.equals(key, r.key)
                && Arrays.equals(value, r.value)
                && Objects.equals(topic, r.topic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset);
    }

    @Override
    public String toString() {
        return "KafkaRecord{" + topic + "-" + partition + "@" + offset + '}';
    }
}
