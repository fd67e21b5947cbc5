package org.flinkss.runtime.table;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.ChangeDataFeed;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Who writes a table: one query's checkpoint (issue 14, point 4), or a command such as {@code
 * land-customers}. Recorded in a Delta table's properties ({@link Warehouse#own}), and for a table
 * of the SQL database in its {@code _flinkss_tables} ({@code SqlTableOwners}), so that a second
 * writer (another query, or the same query of another base sharing the warehouse or the database)
 * is refused before any data moves.
 *
 * @param query the writing query's name, or the command's
 * @param queryId the id of the query's checkpoint ({@code metadata.json}), null for a command
 * @param checkpoint the query's checkpoint directory, relative to the folder that holds the record
 *     (the warehouse's, or the SQLite file's: so that a base that holds both can move), or a URI
 *     ({@code file:/...}, {@code s3://...}) when no such folder holds both; null for a command. A
 *     relative record is a path between two local folders: that is why the folders here are local
 *     {@link File}s (the local file system is the point), and a record on an object store is its
 *     URI.
 */
public record TableOwner(String query, @Nullable String queryId, @Nullable String checkpoint) {

    /** Table property: the writing query (or command). */
    public static final String WRITER = "flinkss.writer";

    /** Table property: the id of the writing query's checkpoint. */
    public static final String WRITER_ID = "flinkss.writer.id";

    /** Table property: the writing query's checkpoint directory, relative to the warehouse. */
    public static final String WRITER_CHECKPOINT = "flinkss.writer.checkpoint";

    /** Table property: how the table is written, {@link TableMode#text()}. */
    public static final String MODE = "flinkss.mode";

    public TableOwner {
        Objects.requireNonNull(query, "query");
    }

    /** The query {@code query} with the checkpoint {@code checkpointDir} of id {@code queryId}. */
    public static TableOwner query(
            String query, String queryId, File checkpointDir, File warehouseRoot) {
        return new TableOwner(
                query,
                queryId,
                warehouseRoot
                        .toPath()
                        .relativize(checkpointDir.toPath().toAbsolutePath())
                        .toString());
    }

    /**
     * The query {@code query} with the checkpoint {@code checkpointDir} of id {@code queryId},
     * writing to {@code warehouse}: the checkpoint recorded relative to a local warehouse (as
     * {@link #query(String, String, File, File)}), as an absolute URI beside one on an object
     * store.
     */
    public static TableOwner query(
            String query, String queryId, File checkpointDir, Warehouse warehouse) {
        return warehouse.isLocal()
                ? query(
                        query,
                        queryId,
                        checkpointDir,
                        Storage.localFile(warehouse.location(), "a warehouse"))
                : new TableOwner(
                        query,
                        queryId,
                        checkpointDir.toPath().toAbsolutePath().normalize().toUri().toString());
    }

    /**
     * The query {@code query} with the checkpoint {@code layout} of id {@code queryId}, writing to
     * {@code warehouse}: its local folder as {@link #query(String, String, File, Warehouse)}
     * records it, a checkpoint on an object store by its URI.
     */
    public static TableOwner ofCheckpoint(
            String query, String queryId, CheckpointLayout layout, Warehouse warehouse) {
        return layout.isObjectStore()
                ? new TableOwner(query, queryId, layout.location().toString())
                : query(
                        query,
                        queryId,
                        Storage.localFile(layout.location(), "a checkpoint"),
                        warehouse);
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

    /** This owner as table properties (the writer's, without a mode). */
    Map<String, String> writerProperties() {
        Map<String, String> p = new HashMap<>();
        p.put(WRITER, query);
        if (queryId != null) {
            p.put(WRITER_ID, queryId);
        }
        if (checkpoint != null) {
            p.put(WRITER_CHECKPOINT, checkpoint);
        }
        return p;
    }

    /**
     * This owner and a mode as table properties. A table whose rows are updated or replaced
     * (complete and merge modes) has Delta's change data feed on, as the course's readers of {@code
     * readChangeFeed} expect.
     */
    Map<String, String> properties(TableMode mode) {
        Map<String, String> p = writerProperties();
        p.put(MODE, mode.text());
        if (mode == TableMode.REPLACED || mode == TableMode.MERGED) {
            p.put(ChangeDataFeed.PROPERTY, "true");
        }
        return p;
    }

    /** The same writer: the same checkpoint id, or the same command. */
    public boolean sameAs(TableOwner other) {
        return queryId == null
                ? other.queryId == null && query.equals(other.query)
                : queryId.equals(other.queryId);
    }

    /**
     * Whether {@code now}, the same query's checkpoint (same id), runs at another place than this
     * record names: its base was moved or copied while the folder holding the record stayed (a
     * {@code --warehouse} or a database outside the base). One inside the base moves with it and
     * records the same relative place.
     */
    public boolean namesAnotherPlaceThan(TableOwner now) {
        return checkpoint != null && now.checkpoint != null && !checkpoint.equals(now.checkpoint);
    }

    /**
     * The checkpoint this record names, a relative one resolved against {@code root} (the folder
     * that holds the record).
     */
    public CheckpointLayout checkpointLayout(@Nullable File root) {
        Objects.requireNonNull(checkpoint, "a command's record names no checkpoint");
        if (checkpoint.contains(":")) {
            return new CheckpointLayout(Storage.location(checkpoint));
        }
        if (root == null) {
            throw new IllegalStateException(
                    "the writer record '" + checkpoint + "' is relative, and no folder holds it");
        }
        return new CheckpointLayout(
                Storage.location(root.toPath().resolve(checkpoint).normalize().toFile()));
    }

    /**
     * Whether the checkpoint this record names is still there with the same query id, beside {@code
     * now} (its copy, not a moved one): both would write the table.
     */
    public boolean stillHeldBeside(TableOwner now, @Nullable File root) {
        try {
            CheckpointLayout there = checkpointLayout(root);
            return !there.equals(now.checkpointLayout(root))
                    && Storage.exists(there.metadata())
                    && Objects.equals(queryId, QueryIdentity.idIn(there));
        } catch (IOException | RuntimeException e) {
            return false; // gone or unreadable: not a writer any more
        }
    }

    /** For messages: {@code query 'bronze' of checkpoint /data/_cp/bronze (id 5f...)}. */
    public String describe(@Nullable File warehouseRoot) {
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
                                        : warehouseRoot.toPath().resolve(checkpoint).normalize()))
                + (queryId == null ? "" : " (query id " + queryId + ")");
    }
}
