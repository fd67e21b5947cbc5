package org.flinkss.runtime.table.delta;

import org.apache.flink.table.data.TimestampData;

import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class Int96Test {

    @Test
    void instantsBeforeAndAfter1970ComeBackWithTheirSubMillisecondDigits() {
        for (String t :
                new String[] {
                    "1970-01-01T00:00:00Z",
                    "2025-03-01T12:34:56.789123Z",
                    "1969-12-31T23:59:59.999999Z",
                    "1900-06-15T08:00:00.000001Z"
                }) {
            TimestampData ts = TimestampData.fromInstant(Instant.parse(t));
            byte[] bytes = new byte[Int96.LENGTH];
            Int96.encode(ts, bytes);
            assertThat(Int96.decode(Binary.fromConstantByteArray(bytes)).toInstant())
                    .as(t)
                    .isEqualTo(Instant.parse(t));
        }
    }

    @Test
    void theDayIsFlooredAndTheTimeOfDayIsNeverNegative() {
        byte[] bytes = new byte[Int96.LENGTH];
        Int96.encode(
                TimestampData.fromInstant(Instant.parse("1969-12-31T23:59:59.999999Z")), bytes);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getLong(0)).isEqualTo(86_399_999_999_000L);
        assertThat(b.getInt(8)).isEqualTo(2_440_587);
    }

    @Test
    void aNegativeTimeOfDayOfOlderFilesReadsAsTheInstantItMeant() {
        // flink-parquet's writer truncated toward zero: 1970-01-01 minus 1 us as day 2440588 and
        // -1,000 ns of the day.
        ByteBuffer b = ByteBuffer.allocate(Int96.LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(0, -1_000L).putInt(8, 2_440_588);
        assertThat(Int96.decode(Binary.fromConstantByteArray(b.array())).toInstant())
                .isEqualTo(Instant.parse("1969-12-31T23:59:59.999999Z"));
    }
}
