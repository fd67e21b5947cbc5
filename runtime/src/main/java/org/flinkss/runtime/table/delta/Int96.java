package org.flinkss.runtime.table.delta;

import org.apache.flink.table.data.TimestampData;

import org.apache.parquet.io.api.Binary;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Parquet's {@code INT96} timestamp, as Spark and flink-parquet write it for the Delta tables here:
 * 12 bytes, little-endian, the nanoseconds of the day then the Julian day, an instant in UTC. The
 * one place its layout is written down, for {@link RowParquetWriter} and {@link RowParquetReader}.
 */
final class Int96 {

    /** Its length in bytes. */
    static final int LENGTH = 12;

    private static final long MILLIS_IN_DAY = 86_400_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;

    /** The Julian day of 1970-01-01. */
    private static final int JULIAN_EPOCH_DAY = 2_440_588;

    private Int96() {}

    /**
     * Writes {@code ts} into {@code into} (at least {@link #LENGTH} bytes), with the day floored
     * and a time of day in {@code [0, 24h)}, as Spark writes it.
     */
    static void encode(TimestampData ts, byte[] into) {
        long millis = ts.getMillisecond();
        long day = Math.floorDiv(millis, MILLIS_IN_DAY);
        long nanosOfDay =
                Math.floorMod(millis, MILLIS_IN_DAY) * NANOS_PER_MILLI + ts.getNanoOfMillisecond();
        int julianDay = (int) (day + JULIAN_EPOCH_DAY);
        for (int i = 0; i < 8; i++) {
            into[i] = (byte) (nanosOfDay >>> (8 * i));
        }
        for (int i = 0; i < 4; i++) {
            into[8 + i] = (byte) (julianDay >>> (8 * i));
        }
    }

    /**
     * The instant {@code binary} holds. A negative time of day (flink-parquet's writer before 1970)
     * reads as the instant it meant: the day and the time of day are floored.
     */
    static TimestampData decode(Binary binary) {
        ByteBuffer buffer = binary.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        return decode(buffer.getLong(buffer.position()), buffer.getInt(buffer.position() + 8));
    }

    /** The instant of an {@code INT96}'s two halves, as {@link #decode(Binary)} reads them. */
    static TimestampData decode(long nanosOfDay, int julianDay) {
        long millis =
                (julianDay - JULIAN_EPOCH_DAY) * MILLIS_IN_DAY
                        + Math.floorDiv(nanosOfDay, NANOS_PER_MILLI);
        return TimestampData.fromEpochMillis(
                millis, (int) Math.floorMod(nanosOfDay, NANOS_PER_MILLI));
    }
}
