package org.flinkss.runtime.table;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Timestamps in {@code table show} and {@code table export}: as Spark's {@code show()} casts them
 * to text, and in CSV without losing microseconds; read at the column's precision.
 */
class RowValuesTest {

    @Test
    void showPrintsTheFractionAsSparksShowDoesTrailingZerosDropped() {
        // Measured on Spark 4.0.4: df.show() of .123456, .120000 and .000000.
        assertThat(RowValues.display(Instant.parse("2025-03-01T00:00:00.123456Z")))
                .isEqualTo("2025-03-01 00:00:00.123456");
        assertThat(RowValues.display(Instant.parse("2025-03-01T00:00:00.120Z")))
                .isEqualTo("2025-03-01 00:00:00.12");
        assertThat(RowValues.display(Instant.parse("2025-03-01T00:00:00.000001Z")))
                .isEqualTo("2025-03-01 00:00:00.000001");
        assertThat(RowValues.display(Instant.parse("2025-03-01T00:00:00Z")))
                .isEqualTo("2025-03-01 00:00:00");
    }

    @Test
    void aNegativeYearIsWrittenAsSparkWritesIt() {
        // Year -1 of the proleptic calendar; "yyyy" (year of era) wrote it 0002 (issue 38).
        Instant minusOne = Instant.parse("-0001-06-01T12:00:00Z");

        assertThat(RowValues.csv(minusOne)).isEqualTo("-0001-06-01T12:00:00.000Z");
        assertThat(RowValues.display(minusOne)).isEqualTo("-0001-06-01 12:00:00");
        assertThat(RowValues.csv(Instant.parse("0001-01-01T00:00:00Z")))
                .isEqualTo("0001-01-01T00:00:00.000Z");
    }

    @Test
    void csvKeepsMicrosecondsAndWritesWholeMillisecondsAsBefore() {
        assertThat(RowValues.csv(Instant.parse("2025-03-01T00:00:00.123456Z")))
                .isEqualTo("2025-03-01T00:00:00.123456Z");
        assertThat(RowValues.csv(Instant.parse("2025-03-01T00:00:00.120Z")))
                .isEqualTo("2025-03-01T00:00:00.120Z");
        assertThat(RowValues.csv(Instant.parse("2025-03-01T00:00:00Z")))
                .isEqualTo("2025-03-01T00:00:00.000Z");
    }

    @Test
    void aBinaryRowIsReadAtItsColumnsPrecision() {
        Instant micros = Instant.parse("2025-03-01T00:00:00.123456Z");
        Instant millis = Instant.parse("2025-03-01T00:00:00.123Z");
        RowType type =
                RowType.of(
                        new LogicalType[] {
                            new LocalZonedTimestampType(6), new LocalZonedTimestampType(3)
                        },
                        new String[] {"us", "ms"});
        RowData binary =
                new RowDataSerializer(type)
                        .toBinaryRow(
                                GenericRowData.of(
                                        TimestampData.fromInstant(micros),
                                        TimestampData.fromInstant(millis)));

        assertThat(RowValues.toList(binary, type)).isEqualTo(List.of(micros, millis));
    }
}
