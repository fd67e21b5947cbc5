package org.flinkss.runtime.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes small JSON files atomically (temporary file, then rename; on an object store one PUT), as
 * every reader expects. The {@code org.apache.flink.core.fs.Path} methods reach any storage ({@link
 * Storage}); the {@code java.nio} ones, local files.
 */
public final class JsonFiles {

    public static final ObjectMapper JSON =
            new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private JsonFiles() {}

    public static void write(Path file, Object value) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
            JSON.writeValue(tmp.toFile(), value);
            Files.move(
                    tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    public static void touch(Path file) {
        try {
            Files.createDirectories(file.getParent());
            if (!Files.exists(file)) {
                Files.createFile(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes {@code value} to a file anywhere: readers see the old content or the new. */
    public static void write(org.apache.flink.core.fs.Path file, Object value) {
        try {
            Storage.replace(file, JSON.writeValueAsBytes(value));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** The JSON of a file anywhere; a missing file is an {@link IOException}. */
    public static JsonNode readTree(org.apache.flink.core.fs.Path file) throws IOException {
        return JSON.readTree(Storage.readBytes(file));
    }

    /** The JSON of a file anywhere as {@code type}; a missing file is an {@link IOException}. */
    public static <T> T read(org.apache.flink.core.fs.Path file, Class<T> type) throws IOException {
        return JSON.readValue(Storage.readBytes(file), type);
    }

    /** Creates an empty file anywhere, if there is none. */
    public static void touch(org.apache.flink.core.fs.Path file) {
        try {
            if (!Storage.exists(file)) {
                Storage.replace(file, new byte[0]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
