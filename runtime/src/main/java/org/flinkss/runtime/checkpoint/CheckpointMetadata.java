package org.flinkss.runtime.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A checkpoint's {@code metadata.json} as read: the one parser of that file. It holds the query's
 * {@code name}, its {@code id} (Spark's query id, kept across runs), the {@code layout} version of
 * the checkpoint ({@link CheckpointLayout#VERSION}) and the query's identity ({@link
 * QueryIdentity}: {@code sources}, {@code sinks}, {@code stateful}, {@code records}, {@code
 * tables}, and {@code conf}: Spark's {@code spark.sql.streaming.multipleWatermarkPolicy} of a query
 * with several watermark nodes, {@link ConfRecord}) and the {@code warehouse} it writes to ({@link
 * WarehouseBinding}). Earlier versions also wrote {@code base}, the base folder their absolute
 * paths start with. A file that {@code reset} made has a name, an id and a layout, and no identity
 * yet.
 *
 * <p>Written by {@link IdentityStore} (and its {@code warehouse} by {@link WarehouseBinding}); read
 * by the runner (the identity check), the table writers (the query id their commits carry), {@code
 * reset} and {@code recompute}.
 */
public final class CheckpointMetadata {

    /** The field that holds {@link CheckpointLayout#VERSION}. */
    static final String LAYOUT_FIELD = "layout";

    /** The field in which earlier versions recorded the base folder; read, never written. */
    static final String BASE_FIELD = "base";

    private final JsonNode json;

    private CheckpointMetadata(JsonNode json) {
        this.json = json;
    }

    /** The metadata of {@code layout}'s checkpoint; empty if it has no {@code metadata.json}. */
    public static Optional<CheckpointMetadata> read(CheckpointLayout layout) throws IOException {
        try {
            return Optional.of(parse(Storage.readBytes(layout.metadata())));
        } catch (FileNotFoundException | NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** The metadata in {@code bytes}; an {@link IOException} if they are not JSON. */
    static CheckpointMetadata parse(byte[] bytes) throws IOException {
        JsonNode json = JsonFiles.JSON.readTree(bytes);
        return new CheckpointMetadata(json == null ? JsonFiles.JSON.missingNode() : json);
    }

    /**
     * The query id of {@code layout}'s checkpoint.
     *
     * @throws IllegalStateException if the file holds none
     * @throws UncheckedIOException if it cannot be read
     */
    static String queryIdIn(CheckpointLayout layout) {
        String file = Storage.shown(layout.metadata());
        try {
            return queryIdOf(read(layout), file);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the query id in " + file + ": " + e.getMessage(), e);
        }
    }

    private static String queryIdOf(Optional<CheckpointMetadata> metadata, Object file)
            throws IOException {
        if (metadata.isEmpty()) {
            throw new NoSuchFileException(file.toString(), null, "no such file");
        }
        String id = metadata.get().queryId();
        if (id.isEmpty()) {
            throw new IllegalStateException("no query id in " + file);
        }
        return id;
    }

    /**
     * Why the file is no identity file (it is empty, or not a JSON object with a name), or null if
     * it is one.
     */
    @Nullable
    String problem() {
        if (json.isObject() && json.path("name").isTextual()) {
            return null;
        }
        return json.isMissingNode() ? "it is empty" : "it holds no query identity";
    }

    /** The query's name. */
    public String name() {
        return json.path("name").asText();
    }

    /** The query id; empty if the file holds none. */
    public String queryId() {
        return json.path("id").asText("");
    }

    /** The layout version as written: missing in a checkpoint of the earliest versions. */
    JsonNode layoutVersion() {
        return json.path(LAYOUT_FIELD);
    }

    /** Whether the file holds a query's identity: not one that {@code reset} made. */
    public boolean hasIdentity() {
        return json.has("sources");
    }

    /** The base folder an earlier version recorded, or empty. */
    String recordedBase() {
        return json.path(BASE_FIELD).asText("");
    }

    /**
     * The warehouse the query writes to, as {@link WarehouseBinding} recorded it at its first run
     * ({@code ${base}/...} under the base); empty in a checkpoint made before it was recorded.
     */
    Optional<String> recordedWarehouse() {
        JsonNode warehouse = json.path(WarehouseBinding.FIELD);
        return warehouse.isTextual() && !warehouse.asText().isEmpty()
                ? Optional.of(warehouse.asText())
                : Optional.empty();
    }

    /** Whether an earlier version recorded the base folder ({@link #recordedBase}). */
    boolean hasRecordedBase() {
        return json.has(BASE_FIELD);
    }

    /** The query's identity as recorded. */
    public QueryIdentity identity() {
        return QueryIdentity.fromJson(json);
    }

    /**
     * The tables the query writes as the identity lists them: its sinks and its record tables (what
     * {@code reset} empties).
     */
    public Set<String> tablesWritten() {
        Set<String> written = new LinkedHashSet<>();
        json.path("sinks").forEach(sink -> written.add(sink.asText()));
        json.path("records").forEach(record -> written.add(record.asText()));
        return written;
    }

    /** The JSON to write for {@code identity} with query id {@code id}, at this layout version. */
    static ObjectNode json(QueryIdentity identity, String id) {
        ObjectNode node = identity.toJson();
        node.put("id", id);
        node.put(LAYOUT_FIELD, CheckpointLayout.VERSION);
        return node;
    }
}
