package org.flinkss.runtime.ops;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointMetadata;
import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.checkpoint.IdentityStore;
import org.flinkss.runtime.checkpoint.ResetMarker;
import org.flinkss.runtime.checkpoint.WarehouseBinding;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.runner.RunTmpFolders;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.sink.jdbc.SqlTableOwners;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.TableOwner;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.LegacyTables;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Topic 11.14's "new checkpoint, reprocess": replaces a query's checkpoint with a new, empty one (a
 * new query id) and empties the tables the query owns, each with one Delta commit that removes
 * every data file and records the new checkpoint as the table's writer, so that its next run
 * reprocesses its sources from the start without duplicating a row; a table of the SQL database the
 * query claimed is emptied in one transaction that hands the claim to the new checkpoint. Held
 * under the query's lock; tables written by another query, or by the same query of another base,
 * are left alone. The temporary folders killed runs of the query left ({@link RunTmpFolders}) go
 * too.
 *
 * <p>Which tables are the query's is decided before anything is deleted: a reset that would empty
 * another base's table (a copy of the checkpoint sharing its warehouse) is refused whole.
 *
 * <p>Resumable: the decision (tables, new id) is written first, as a {@link ResetMarker} in the
 * checkpoint; every step after it can be done twice. A reset killed part-way is completed by the
 * next {@code reset} of the query, and a run of the query is refused until then, naming it.
 */
public final class QueryReset {

    private final QueryCheckpoint checkpoint;
    private final Warehouse warehouse;
    @Nullable private final Database database;
    private final File tmpRoot;

    private QueryReset(
            QueryCheckpoint checkpoint,
            Warehouse warehouse,
            @Nullable Database database,
            File tmpRoot) {
        this.checkpoint = checkpoint;
        this.warehouse = warehouse;
        this.database = database;
        this.tmpRoot = tmpRoot;
    }

    /**
     * Resets query {@code query} of the base {@code base} (a local folder or {@code
     * s3://bucket/prefix}): deletes its checkpoint and empties the tables it wrote (its
     * checkpoint's identity lists them), returning their names; no SQL database when {@code
     * database} is null.
     *
     * @param query a query's name, never a path: nothing outside {@code <base>/_cp/<query>} is
     *     touched
     */
    public static List<String> reset(
            Path base, Warehouse warehouse, @Nullable Database database, String query)
            throws IOException, SQLException {
        return new QueryReset(
                        QueryCheckpoint.of(base, query),
                        warehouse,
                        database,
                        RunOptions.tmpRootOf(base))
                .reset();
    }

    private List<String> reset() throws IOException, SQLException {
        String query = checkpoint.query();
        CheckpointLayout layout = checkpoint.layout();
        if (!checkpoint.exists() && ResetMarker.read(layout).isEmpty()) {
            throw nothingToReset();
        }
        List<String> emptied = new ArrayList<>();
        try (QueryCheckpoint.Lock lock = checkpoint.lock()) {
            SqlTableOwners owners = database == null ? null : new SqlTableOwners(database);
            // A reset cut short (killed) left its marker: complete that one, with the tables it
            // chose while the old identity was there to decide them, and the same new id.
            ResetMarker marker = ResetMarker.read(layout).orElse(null);
            if (marker == null) {
                // A reset with another warehouse would empty the tables of the wrong one.
                new WarehouseBinding(layout).check(query, warehouse.location(), "reset");
                marker = plan(owners);
                marker.write(layout);
            }
            ResetSteps.reached(ResetSteps.MARKED);
            for (Path part : layout.resetParts()) {
                Folders.deleteQuietly(part);
            }
            ResetSteps.reached(ResetSteps.DELETED);
            new IdentityStore(layout).renew(query, marker.newId());
            // The new checkpoint stays bound to the warehouse whose tables the reset empties.
            new WarehouseBinding(layout).record(warehouse.location());
            ResetSteps.reached(ResetSteps.RENEWED);
            TableOwner newOwner = checkpoint.owner(marker.newId(), warehouse);
            for (String table : marker.tables()) {
                if (warehouse.exists(table)) {
                    warehouse.empty(table, newOwner);
                }
                emptied.add(table);
                ResetSteps.reached(ResetSteps.EMPTIED_ONE);
            }
            // The SQL database's table of the same name too (an update-mode run keeps its rows
            // there, beside the warehouse table of an earlier append run): both start empty.
            if (owners != null) {
                TableOwner here = owners.owner(query, marker.oldId(), layout);
                TableOwner next = owners.owner(query, marker.newId(), layout);
                for (String table : marker.databaseTables()) {
                    owners.empty(table, here, next);
                    if (!emptied.contains(table)) {
                        emptied.add(table);
                    }
                }
            }
            // What killed runs of the query left in <base>/_tmp/<query> (their next run would
            // remove it too): a reset leaves nothing of the query's earlier runs.
            RunTmpFolders.removeLeftovers(tmpRoot.toPath(), query);
            ResetSteps.reached(ResetSteps.EMPTIED_ALL);
            ResetMarker.remove(layout);
        }
        return emptied;
    }

    /**
     * What the reset is to do, decided before anything is deleted (a copy's reset is refused
     * whole): the tables the query owns in the warehouse and in the SQL database, and the new id.
     */
    private ResetMarker plan(@Nullable SqlTableOwners owners) throws IOException, SQLException {
        String query = checkpoint.query();
        CheckpointLayout layout = checkpoint.layout();
        // Read as it is: an identity file a disk cut short has no id, and its tables are found
        // by the folder they record (a damaged checkpoint is what a reset is for).
        CheckpointMetadata metadata =
                CheckpointMetadata.read(layout).orElseThrow(this::nothingToReset);
        String queryId = metadata.queryId();
        Set<String> written = metadata.tablesWritten();
        List<String> owned = ownedInWarehouse(queryId, written);
        // A table of the SQL database is this query's when its claim names this checkpoint
        // (SqlTableOwners), or nobody claimed it (a database made before the claims) and no
        // warehouse table of its name belongs to another writer.
        List<String> ownedInDatabase = new ArrayList<>();
        TableOwner hereInDatabase = owners == null ? null : owners.owner(query, queryId, layout);
        for (String table : written) {
            if (owners != null
                    && database.hasTable(table)
                    && owners.emptiedByResetOf(
                            table,
                            hereInDatabase,
                            owned.contains(table) || !warehouse.exists(table))) {
                ownedInDatabase.add(table);
            }
        }
        return new ResetMarker(
                query,
                queryId,
                UUID.randomUUID().toString(),
                owned,
                ownedInDatabase,
                Instant.now());
    }

    /**
     * The reset of {@code query} of {@code base} that was cut short (killed), which the next {@link
     * #reset} completes: when it started and what it empties; empty if none.
     */
    public static Optional<String> cutShort(Path base, String query) {
        return ResetMarker.read(QueryCheckpoint.of(base, query).layout())
                .map(ResetMarker::describe);
    }

    private IllegalArgumentException nothingToReset() {
        return new IllegalArgumentException(
                "query '"
                        + checkpoint.query()
                        + "' has no checkpoint under "
                        + checkpoint
                        + ": nothing to reset");
    }

    /**
     * The warehouse's tables this checkpoint owns. A table is this query's when it records this
     * checkpoint (its id, or its folder: a reset cut short) or, converted from the earlier format,
     * the query's name and no checkpoint yet.
     */
    private List<String> ownedInWarehouse(String queryId, Set<String> written) {
        String query = checkpoint.query();
        CheckpointLayout layout = checkpoint.layout();
        List<String> owned = new ArrayList<>();
        TableOwner here = checkpoint.owner(queryId, warehouse);
        for (String table : warehouse.tables()) {
            if (!warehouse.isLegacy(table)) {
                TableOwner owner = warehouse.owner(table);
                if (warehouse.writtenByACopy(table, here)) {
                    throw new IllegalStateException(
                            "table '"
                                    + table
                                    + "' ("
                                    + warehouse.where()
                                    + ") is written by the checkpoint this one was copied"
                                    + " from (recorded as "
                                    + owner.checkpoint()
                                    + ", the same query id "
                                    + queryId
                                    + "): resetting "
                                    + layout
                                    + " would empty that base's table. Nothing was deleted."
                                    + " Two bases sharing one --warehouse? Give each its own"
                                    + " --warehouse.");
                }
                if (queryId.equals(owner.queryId())
                        || (owner.checkpoint() != null
                                && owner.query().equals(query)
                                && records(owner))
                        || (owner.queryId() == null
                                && owner.query().equals(query)
                                && written.contains(table))) {
                    owned.add(table);
                }
            } else if (written.contains(table)) {
                throw new IllegalStateException(
                        LegacyTables.refusal(Storage.shown(warehouse.tableLocation(table))));
            }
        }
        return owned;
    }

    /** Whether {@code owner} records this checkpoint. */
    private boolean records(TableOwner owner) {
        CheckpointLayout layout = checkpoint.layout();
        if (layout.isObjectStore()) {
            return layout.location().toString().equals(owner.checkpoint());
        }
        return layout.equals(warehouse.checkpointOf(owner));
    }
}
