package org.flinkss.runtime.checkpoint;

import java.io.IOException;

/**
 * How one record type of a {@link CheckpointLog} is written to an entry's bytes and read back (one
 * codec per record type, as each of Spark's metadata logs has its own {@code serialize} and {@code
 * deserialize}). A codec reads every version of the record that a checkpoint may still hold.
 *
 * @param <T> the record type
 */
public interface LogCodec<T> {

    byte[] encode(T record) throws IOException;

    T decode(byte[] bytes) throws IOException;

    /** The record as JSON (Jackson's mapping of {@code type}: a record's components by name). */
    static <T> LogCodec<T> json(Class<T> type) {
        return new LogCodec<>() {
            @Override
            public byte[] encode(T record) throws IOException {
                return JsonFiles.JSON.writeValueAsBytes(record);
            }

            @Override
            public T decode(byte[] bytes) throws IOException {
                return JsonFiles.JSON.readValue(bytes, type);
            }
        };
    }
}
