package org.flinkss.runtime.source.kafka;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

import org.flinkss.runtime.table.TableDef;

import java.util.List;

/**
 * The tables of the Kafka queries: raw records (bronze) and values that are not events
 * (quarantine).
 */
public final class KafkaTables {

    public static final String BRONZE = "kafka_bronze";
    public static final String EVENTS = "kafka_events";
    public static final String EVENTS_QUARANTINE = "kafka_events_quarantine";

    /**
     * Spark's Kafka source schema: {@code key, value} (binary), {@code topic, partition, offset,
     * timestamp, timestampType}.
     */
    public static final RowType BRONZE_ROW =
            TableDef.columns(
                    List.of(
                            "key",
                            "value",
                            "topic",
                            "partition",
                            "offset",
                            "timestamp",
                            "timestampType"),
                    new VarBinaryType(VarBinaryType.MAX_LENGTH),
                    new VarBinaryType(VarBinaryType.MAX_LENGTH),
                    VarCharType.STRING_TYPE,
                    new IntType(),
                    new BigIntType(),
                    new LocalZonedTimestampType(3),
                    new IntType());

    /** Where a value came from, its text, and why it is not an event. */
    public static final RowType QUARANTINE_ROW =
            TableDef.columns(
                    List.of("topic", "partition", "offset", "raw", "reason"),
                    VarCharType.STRING_TYPE,
                    new IntType(),
                    new BigIntType(),
                    VarCharType.STRING_TYPE,
                    VarCharType.STRING_TYPE);

    public static final int VALUE = 1;
    public static final int TOPIC = 2;
    public static final int PARTITION = 3;
    public static final int OFFSET = 4;

    private KafkaTables() {}

    public static TableDef<KafkaRecord> bronze(String name) {
        return new TableDef<>(
                name,
                BRONZE_ROW,
                r ->
                        GenericRowData.of(
                                r.key,
                                r.value,
                                StringData.fromString(r.topic),
                                r.partition,
                                r.offset,
                                r.timestamp < 0 ? null : TimestampData.fromEpochMillis(r.timestamp),
                                r.timestampType));
    }

    public static TableDef<BadValue> quarantine(String name) {
        return new TableDef<>(
                name,
                QUARANTINE_ROW,
                b ->
                        GenericRowData.of(
                                StringData.fromString(b.topic),
                                b.partition,
                                b.offset,
                                b.raw == null ? null : StringData.fromString(b.raw),
                                StringData.fromString(b.reason)));
    }

    /**
     * A record whose value is not an event: where it is, what it said (as text, if it was text),
     * and why.
     */
    public static final class BadValue {
        public String topic;
        public int partition;
        public long offset;
        public String raw;
        public String reason;

        public BadValue() {}

        public BadValue(String topic, int partition, long offset, String raw, String reason) {
            this.topic = topic;
            this.partition = partition;
            this.offset = offset;
            this.raw = raw;
            this.reason = reason;
        }

        @Override
        public String toString() {
            return "BadValue{" + topic + "-" + partition + "@" + offset + ": " + reason + '}';
        }
    }
}
