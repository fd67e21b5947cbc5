package org.flinkss.course.sql;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.source.kafka.KafkaRecord;
import org.flinkss.runtime.source.kafka.KafkaRecordFormat;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.sql.SqlColumns;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A Kafka record as the row of a SQL table: the value's columns, then the metadata asked for. */
class KafkaRowFormatTest {

    private static final KafkaRecordFormat RECORDS =
            new KafkaRecordFormat(
                    KafkaSourceOptions.builder()
                            .bootstrapServers("127.0.0.1:9092")
                            .subscribe("events")
                            .build(),
                    "test");

    // event_id BIGINT, event_ts TIMESTAMP_LTZ(3), then METADATA 'offset' and 'timestamp-type'.
    private static final RowType PHYSICAL =
            RowType.of(
                    new LogicalType[] {new BigIntType(), new LocalZonedTimestampType(3)},
                    new String[] {"event_id", "event_ts"});
    private static final RowType PRODUCED =
            RowType.of(
                    new LogicalType[] {
                        new BigIntType(),
                        new LocalZonedTimestampType(3),
                        new BigIntType(),
                        VarCharType.STRING_TYPE
                    },
                    new String[] {"event_id", "event_ts", "offset", "timestamp-type"});

    private static KafkaRowFormat json() {
        int[] columns = SqlColumns.match("events", PHYSICAL, EventTables.EVENT_ROW, "events");
        return new KafkaRowFormat(
                RECORDS,
                KafkaRowFormat.Value.JSON,
                PHYSICAL,
                columns,
                List.of("offset", "timestamp-type"),
                PRODUCED,
                1);
    }

    private static KafkaRecord record(byte[] value, long offset) {
        return new KafkaRecord(null, value, "events", 2, offset, 1_740_787_200_000L, 0);
    }

    @Test
    void anEventsValueGivesItsColumnsThenTheMetadataAndItsEventTime() {
        Event event = EventGenerator.event(7);
        KafkaRowFormat format = json();

        RowData row =
                format.row(record(EventJson.toJson(event).getBytes(StandardCharsets.UTF_8), 41));

        assertThat(row.getLong(0)).isEqualTo(7);
        assertThat(row.getTimestamp(1, 3).getMillisecond()).isEqualTo(event.eventTs.toEpochMilli());
        assertThat(row.getLong(2)).isEqualTo(41);
        assertThat(row.getString(3).toString()).isEqualTo("CreateTime");
        assertThat(format.eventTime(row)).isEqualTo(event.eventTs.toEpochMilli());
        assertThat(format.isBad(row)).isFalse();
        assertThat(format.columns()).isEqualTo(4);
    }

    @Test
    void aValueThatIsNotAnEventIsARowOfNullsWithoutEventTimeAndSaysWhy() {
        KafkaRowFormat format = json();

        RowData row = format.row(record("[1]".getBytes(StandardCharsets.UTF_8), 3));

        assertThat(row.isNullAt(0)).isTrue();
        assertThat(row.isNullAt(1)).isTrue();
        assertThat(row.getLong(2)).isEqualTo(3);
        assertThat(format.eventTime(row)).isEqualTo(Long.MIN_VALUE);
        assertThat(format.isBad(row)).isTrue();
        // The trailing columns: topic, partition, offset, raw, problem.
        assertThat(row.getString(4).toString()).isEqualTo("events");
        assertThat(row.getInt(5)).isEqualTo(2);
        assertThat(row.getString(7).toString()).isEqualTo("[1]");
        assertThat(row.getString(8).toString()).isEqualTo("a JSON array, not one object");
    }

    @Test
    void aRawValueIsOneStringColumn() {
        RowType line = RowType.of(VarCharType.STRING_TYPE);
        KafkaRowFormat format =
                new KafkaRowFormat(
                        RECORDS, KafkaRowFormat.Value.RAW_STRING, line, null, List.of(), line, -1);

        RowData row = format.row(record("héllo".getBytes(StandardCharsets.UTF_8), 0));

        assertThat(row.getString(0).toString()).isEqualTo("héllo");
        assertThat(format.eventTime(row)).isEqualTo(Long.MIN_VALUE);
        assertThat(format.isBad(row)).isFalse();
    }

    @Test
    void aWatermarkOnTheRecordTimestampTakesItsEventTimeFromTheRecord() {
        RowType line = RowType.of(VarCharType.STRING_TYPE);
        RowType produced =
                RowType.of(
                        new LogicalType[] {VarCharType.STRING_TYPE, new LocalZonedTimestampType(3)},
                        new String[] {"line", "ts"});
        KafkaRowFormat format =
                new KafkaRowFormat(
                        RECORDS,
                        KafkaRowFormat.Value.RAW_STRING,
                        line,
                        null,
                        List.of("timestamp"),
                        produced,
                        1);

        RowData row = format.row(record("x".getBytes(StandardCharsets.UTF_8), 0));

        assertThat(format.eventTime(row)).isEqualTo(1_740_787_200_000L);
    }
}
