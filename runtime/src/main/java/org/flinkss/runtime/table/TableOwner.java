package org.flinkss.runtime.table;

import javax.annotation.Nullable;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Who writes a table of the warehouse: one query's checkpoint (issue 14, point 4), or a command
 * such as {@code land-customers}. Recorded in the Delta table's properties, so that a second writer
 * (another query, or the same query of another base sharing the warehouse) is refused before any
 * data moves.
 *
 * @param query the writing query's name, or the command's
 * @param queryId the id of the query's checkpoint ({@code metadata.json}), null for a command
 * @param checkpoint the query's checkpoint directory, relative to the warehouse's folder (so that a
 *     base that holds both can move), null for a command
 */
public record TableOwner(String query, @Nullable String queryId, @Nullable String checkpoint) {

    /** Table property: the writing query (or command). */
    public static final String WRITER = "flinkss.writer";

    /** Table property: the id of the writing query's checkpoint. */
    public static final String WRITER_ID = "flinkss.writer.id";

    /** Table property: the writing query's checkpoint directory, relative to the warehouse. */
    public static final String WRITER_CHECKPOINT = "flinkss.writer.checkpoint";

    /** Table property: {@code append} or {@code complete}. */
    public static final String MODE = "flinkss.mode";

    public TableOwner {
        Objects.requireNonNull(query, "query");
    }

    /** The query {@code query} with the checkpoint {@code checkpointDir} of id {@code queryId}. */
    public static TableOwner query(
            String query, String queryId, Path checkpointDir, Path warehouseRoot) {
        return new TableOwner(
                query,
                queryId,
                warehouseRoot.relativize(checkpointDir.toAbsolutePath()).toString());
    }

    /**
     * The query {@code query} with the checkpoint {@code checkpointDir} of id {@code queryId},
     * writing to {@code warehouse}: the checkpoint recorded relative to a local warehouse (as
     * {@link #query(String, String, Path, Path)}), as an absolute URI beside one on an object
     * store.
     */
    public static TableOwner query(
            String query, String queryId, Path checkpointDir, Warehouse warehouse) {
        return warehouse.isLocal()
                ? query(query, queryId, checkpointDir, warehouse.root())
                : new TableOwner(
                        query,
                        queryId,
                        checkpointDir.toAbsolutePath().normalize().toUri().toString());
    }

    /** A command that writes a table outside any stream (no checkpoint). */
    public static TableOwner command(String name) {
        return new TableOwner(name, null, null);
    }

    /** The owner the properties of a table name (a converted table may have no id yet). */
    static TableOwner of(Map<String, String> properties) {
        return new TableOwner(
                properties.getOrDefault(WRITER, ""),
                properties.get(WRITER_ID),
                properties.get(WRITER_CHECKPOINT));
    }

    /** This owner and a mode as table properties. */
    Map<String, String> properties(String mode) {
        Map<String, String> p = new HashMap<>();
        p.put(WRITER, query);
        if (queryId != null) {
            p.put(WRITER_ID, queryId);
        }
        if (checkpoint != null) {
            p.put(WRITER_CHECKPOINT, checkpoint);
        }
        p.put(MODE, mode);
        return p;
    }

    /** The same writer: the same checkpoint id, or the same command. */
    boolean sameAs(TableOwner other) {
        return queryId == null
                ? other.queryId == null && query.equals(other.query)
                : queryId.equals(other.queryId);
    }

    /** For messages: {@code query 'bronze' of checkpoint /data/_cp/bronze (id 5f...)}. */
    String describe(@Nullable Path warehouseRoot) {
        if (queryId == null && checkpoint == null) {
            return "'" + query + "'";
        }
        return "query '"
                + query
                + "'"
                + (checkpoint == null
                        ? ""
                        : " of checkpoint "
                                + (warehouseRoot == null || checkpoint.contains(":")
                                        ? checkpoint
                                        : warehouseRoot.resolve(checkpoint).normalize()))
                + (queryId == null ? "" : " (query id " + queryId + ")");
    }
}
