package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes small JSON files atomically (temporary file, then rename; on an object store one PUT), as
 * every reader expects, on any storage {@link Storage} reaches.
 */
public final class JsonFiles {

    public static final ObjectMapper JSON =
            new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private JsonFiles() {}

    /** Writes {@code value} to a file anywhere: readers see the old content or the new. */
    public static void write(Path file, Object value) {
        try {
            Storage.replace(file, JSON.writeValueAsBytes(value));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** The JSON of a file anywhere; a missing file is an {@link IOException}. */
    public static JsonNode readTree(Path file) throws IOException {
        return JSON.readTree(Storage.readBytes(file));
    }

    /** The JSON of a file anywhere as {@code type}; a missing file is an {@link IOException}. */
    public static <T> T read(Path file, Class<T> type) throws IOException {
        return JSON.readValue(Storage.readBytes(file), type);
    }

    /** Creates an empty file anywhere, if there is none. */
    public static void touch(Path file) {
        try {
            if (!Storage.exists(file)) {
                Storage.replace(file, new byte[0]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
