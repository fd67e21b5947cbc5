package org.flinkss.runtime.table.delta;

import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A Parquet data file of a Delta table, as its {@code add} action records it: where it is, its size
 * and modification time, and its statistics ({@code numRecords}; per column, where the file's
 * footer has them, the minimum, maximum and null count, keyed by column name, valued by Long,
 * Integer, Double, String or, for DATE, Integer days).
 *
 * @param path an absolute URI ({@code file:/...}, {@code s3://...}); inside the table's folder it
 *     is recorded relative to it, as Spark does
 */
public record DataFile(
        String path,
        long size,
        long modificationTime,
        long numRecords,
        Map<String, Object> minValues,
        Map<String, Object> maxValues,
        Map<String, Long> nullCounts) {

    public DataFile {
        Objects.requireNonNull(path, "path");
        minValues = Map.copyOf(minValues);
        maxValues = Map.copyOf(maxValues);
        nullCounts = Map.copyOf(nullCounts);
    }

    /** A file known by its path, size, time and row count only. */
    public static DataFile of(String path, long size, long modificationTime, long numRecords) {
        return new DataFile(path, size, modificationTime, numRecords, Map.of(), Map.of(), Map.of());
    }

    /** The same file at another place (its folder moved or copied). */
    public DataFile withPath(String newPath) {
        return new DataFile(
                newPath, size, modificationTime, numRecords, minValues, maxValues, nullCounts);
    }

    /** The same file with another modification time (the time its commit made it visible). */
    public DataFile withModificationTime(long time) {
        return new DataFile(path, size, time, numRecords, minValues, maxValues, nullCounts);
    }

    /** The file's name, the last part of its path. */
    public String name() {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** This description as bytes, for a committable that travels between operators. */
    public byte[] toBytes() {
        try {
            DataOutputSerializer out = new DataOutputSerializer(128 + path.length() * 2);
            out.writeUTF(path);
            out.writeLong(size);
            out.writeLong(modificationTime);
            out.writeLong(numRecords);
            writeValues(out, minValues);
            writeValues(out, maxValues);
            out.writeInt(nullCounts.size());
            for (Map.Entry<String, Long> e : nullCounts.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeLong(e.getValue());
            }
            return out.getCopyOfBuffer();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The description {@link #toBytes} wrote. */
    public static DataFile fromBytes(byte[] bytes) {
        try {
            DataInputDeserializer in = new DataInputDeserializer(bytes);
            String path = in.readUTF();
            long size = in.readLong();
            long time = in.readLong();
            long records = in.readLong();
            Map<String, Object> min = readValues(in);
            Map<String, Object> max = readValues(in);
            Map<String, Long> nulls = new HashMap<>();
            for (int i = in.readInt(); i > 0; i--) {
                nulls.put(in.readUTF(), in.readLong());
            }
            return new DataFile(path, size, time, records, min, max, nulls);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeValues(DataOutputSerializer out, Map<String, Object> values)
            throws IOException {
        out.writeInt(values.size());
        for (Map.Entry<String, Object> e : values.entrySet()) {
            out.writeUTF(e.getKey());
            Object v = e.getValue();
            if (v instanceof Long l) {
                out.writeByte('J');
                out.writeLong(l);
            } else if (v instanceof Integer i) {
                out.writeByte('I');
                out.writeInt(i);
            } else if (v instanceof Double d) {
                out.writeByte('D');
                out.writeDouble(d);
            } else {
                out.writeByte('S');
                out.writeUTF(String.valueOf(v));
            }
        }
    }

    private static Map<String, Object> readValues(DataInputDeserializer in) throws IOException {
        Map<String, Object> values = new HashMap<>();
        for (int n = in.readInt(); n > 0; n--) {
            String key = in.readUTF();
            byte tag = in.readByte();
            values.put(
                    key,
                    switch (tag) {
                        case 'J' -> in.readLong();
                        case 'I' -> in.readInt();
                        case 'D' -> in.readDouble();
                        default -> in.readUTF();
                    });
        }
        return values;
    }
}
