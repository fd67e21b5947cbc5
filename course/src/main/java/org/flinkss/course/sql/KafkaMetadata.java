package org.flinkss.course.sql;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;

import org.apache.kafka.common.record.TimestampType;

import org.flinkss.runtime.source.kafka.KafkaRecord;

import java.util.List;

/**
 * The metadata columns of a Kafka table, typed and filled as Flink's Kafka connector declares them
 * ({@code offset BIGINT METADATA FROM 'offset' VIRTUAL}...). {@code headers} and {@code
 * leader-epoch} are not read: the micro-batch reader does not keep them.
 */
final class KafkaMetadata {

    /** The keys read, in Flink's Kafka connector's order. */
    static final List<String> KEYS =
            List.of("topic", "partition", "offset", "timestamp", "timestamp-type");

    private KafkaMetadata() {}

    static DataType type(String key) {
        return switch (key) {
            case "topic" -> DataTypes.STRING().notNull();
            case "partition" -> DataTypes.INT().notNull();
            case "offset" -> DataTypes.BIGINT().notNull();
            case "timestamp" -> DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3).notNull();
            case "timestamp-type" -> DataTypes.STRING().notNull();
            default -> throw new IllegalArgumentException("no Kafka metadata '" + key + "'");
        };
    }

    private static TimestampType timestampType(int id) {
        for (TimestampType t : TimestampType.values()) {
            if (t.id == id) {
                return t;
            }
        }
        return TimestampType.NO_TIMESTAMP_TYPE;
    }

    /** The column's value of a record, as Flink's connector gives it. */
    static Object value(String key, KafkaRecord r) {
        return switch (key) {
            case "topic" -> StringData.fromString(r.topic);
            case "partition" -> r.partition;
            case "offset" -> r.offset;
            case "timestamp" -> r.timestamp < 0 ? null : TimestampData.fromEpochMillis(r.timestamp);
            case "timestamp-type" -> StringData.fromString(timestampType(r.timestampType).name);
            default -> throw new IllegalArgumentException("no Kafka metadata '" + key + "'");
        };
    }
}
