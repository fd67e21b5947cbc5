package org.flinkss.runtime.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.QueryException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The query's identity in its checkpoint's {@code metadata.json}: which query the directory serves
 * (see {@link QueryIdentity}), its id (kept across runs, as Spark's {@code id}), and the version of
 * {@link CheckpointLayout} it was written with.
 *
 * <p>A directory written with another layout version is refused before any data moves: its
 * savepoints hold Flink serializer snapshots that name this project's classes, and the classes were
 * renamed when the layout version changed, so Flink could not restore them.
 */
public final class IdentityStore {

    /** The field of {@code metadata.json} that holds {@link CheckpointLayout#VERSION}. */
    static final String LAYOUT_FIELD = "layout";

    private final CheckpointLayout layout;

    public IdentityStore(CheckpointLayout layout) {
        this.layout = layout;
    }

    /**
     * Refuses a checkpoint written with another layout version, naming the command that starts
     * over. A directory without {@code metadata.json} (a first run) passes.
     */
    public void checkLayout(String queryName) {
        Path meta = layout.metadata();
        if (!Files.exists(meta)) {
            return;
        }
        JsonNode version = read(meta).path(LAYOUT_FIELD);
        if (version.isInt() && version.asInt() == CheckpointLayout.VERSION) {
            return;
        }
        String made =
                version.isMissingNode()
                        ? "by an earlier version of flinkss (its metadata.json has no layout"
                                + " version; this version reads layout "
                                + CheckpointLayout.VERSION
                                + ")"
                        : "with layout "
                                + version
                                + ", this version reads layout "
                                + CheckpointLayout.VERSION;
        throw new QueryException(
                "checkpoint "
                        + layout.dir()
                        + " of query '"
                        + queryName
                        + "' was made "
                        + made
                        + ": its savepoints name classes this version does not have, so it cannot"
                        + " be restored. Start over with 'reset "
                        + queryName
                        + "' (the checkpoint deleted, its tables emptied; the next run reprocesses"
                        + " everything).");
    }

    /**
     * Checks that the directory belongs to the query, or claims it for the query if it is new.
     * Returns the query id.
     */
    public String claim(QueryIdentity identity) {
        Path meta = layout.metadata();
        if (!Files.exists(meta)) {
            String id = UUID.randomUUID().toString();
            write(identity, id);
            return id;
        }
        JsonNode stored = read(meta);
        String id = stored.path("id").asText();
        if (!stored.has("sources") && !id.isEmpty()) {
            // A checkpoint that reset made: its id is the query's from now on.
            write(identity, id);
            return id;
        }
        QueryIdentity existing = QueryIdentity.fromJson(stored);
        if (!existing.sameQuery(identity)) {
            throw new QueryException(
                    "checkpoint "
                            + layout.dir()
                            + " belongs to query "
                            + existing.describe()
                            + ", but this is query "
                            + identity.describe()
                            + ". A checkpoint serves one query: changing sources, sinks or"
                            + " stateful operators needs a new checkpoint. Start over with"
                            + " 'reset "
                            + identity.name()
                            + "' (a new checkpoint, the target rebuilt) or use another"
                            + " --base, and reprocess from bronze.");
        }
        String change = existing.columnChange(identity);
        if (change != null) {
            throw new QueryException(
                    "checkpoint "
                            + layout.dir()
                            + " of query '"
                            + identity.name()
                            + "' "
                            + change
                            + ". A table's columns are part of its query's checkpoint: the"
                            + " same checkpoint cannot go on with other columns. Start over"
                            + " with 'reset "
                            + identity.name()
                            + "' (a new checkpoint, the table rebuilt with the new columns)"
                            + " or use another --base, or run the query as it was when the"
                            + " checkpoint was made.");
        }
        if (!existing.records().equals(identity.records())) {
            // Same query, with record tables a later version added: list them for reset.
            write(existing.withRecords(identity.records()), id);
        }
        return id;
    }

    /**
     * Starts the query over on a new checkpoint ({@code reset}): a {@code metadata.json} with a new
     * query id and no sources, sinks or stateful operators yet, which the next run claims whatever
     * its shape (see {@link #claim}). The tables the query owned record the new id as their writer
     * before that run.
     *
     * @return the new query id
     */
    public String renew(String queryName) {
        String id = UUID.randomUUID().toString();
        ObjectNode node = JsonFiles.JSON.createObjectNode();
        node.put("name", queryName);
        node.put("id", id);
        node.put(LAYOUT_FIELD, CheckpointLayout.VERSION);
        JsonFiles.write(layout.metadata(), node);
        return id;
    }

    private void write(QueryIdentity identity, String id) {
        ObjectNode node = identity.toJson();
        node.put("id", id);
        node.put(LAYOUT_FIELD, CheckpointLayout.VERSION);
        JsonFiles.write(layout.metadata(), node);
    }

    private static JsonNode read(Path meta) {
        try {
            return JsonFiles.JSON.readTree(meta.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + meta + ": " + e.getMessage(), e);
        }
    }
}
