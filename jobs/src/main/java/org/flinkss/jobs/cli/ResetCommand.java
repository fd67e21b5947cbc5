package org.flinkss.jobs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.jobs.cli.options.CheckpointedQuery;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.runtime.checkpoint.CheckpointDir;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.checkpoint.IdentityStore;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.jdbc.Database;
import org.flinkss.runtime.jdbc.SqlTableOwners;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.runner.RunTmpFolders;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.TableOwner;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.LegacyTables;

import javax.annotation.Nullable;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * Topic 11.14's "new checkpoint, reprocess": replaces a query's checkpoint with a new, empty one (a
 * new query id) and empties the tables the query owns, each with one Delta commit that removes
 * every data file and records the new checkpoint as the table's writer, so that its next run
 * reprocesses its sources from the start without duplicating a row; a table of the SQL database the
 * query claimed is emptied in one transaction that hands the claim to the new checkpoint. Held
 * under the query's lock; tables written by another query, or by the same query of another base,
 * are left alone. The temporary folders killed runs of the query left ({@link RunTmpFolders}) go
 * too.
 */
@Command(
        name = "reset",
        mixinStandardHelpOptions = true,
        description =
                "Start a query over: delete its checkpoint and empty the tables it writes; the next"
                        + " run reprocesses from the start.")
public final class ResetCommand implements Callable<Integer> {

    @Mixin DataOptions data;
    @Mixin CheckpointedQuery query;

    @Override
    public Integer call() throws Exception {
        if (data.objectStoreBase()) {
            data.initializeStorage();
        }
        String q = query.checkpointName(data.baseLocation(), "reset");
        List<String> emptied =
                data.objectStoreBase()
                        ? reset(
                                CheckpointLayout.of(data.baseLocation(), q),
                                q,
                                data.openWarehouse(),
                                data.existingDatabase(),
                                RunOptions.tmpRootOf(data.baseLocation()))
                        : reset(
                                CheckpointLayout.of(data.base, q),
                                q,
                                data.openWarehouse(),
                                data.database(),
                                data.base.resolve("_tmp"));
        System.out.println(
                q
                        + ": checkpoint deleted"
                        + (emptied.isEmpty()
                                ? ""
                                : ", tables emptied: " + String.join(", ", emptied))
                        + ". The next run reprocesses everything; older versions of the tables stay"
                        + " readable (time travel) until a table vacuum.");
        return 0;
    }

    /**
     * Deletes the checkpoint of {@code entry} and empties the tables it wrote (its checkpoint's
     * identity lists them), returning their names.
     */
    public static List<String> reset(
            Path base, Warehouse warehouse, Database database, QueryCatalog entry)
            throws Exception {
        // A name of the catalog, never a path: nothing outside <base>/_cp/<query> is touched.
        String query = entry.single("reset").queryName();
        return reset(
                CheckpointLayout.of(base, query), query, warehouse, database, base.resolve("_tmp"));
    }

    /**
     * {@link #reset(Path, Warehouse, Database, QueryCatalog)} of a base anywhere (a local folder or
     * {@code s3://bucket/prefix}), with no SQL database when {@code database} is null.
     */
    public static List<String> reset(
            org.apache.flink.core.fs.Path base,
            Warehouse warehouse,
            @Nullable Database database,
            QueryCatalog entry)
            throws Exception {
        String query = entry.single("reset").queryName();
        return reset(
                CheckpointLayout.of(base, query),
                query,
                warehouse,
                database,
                RunOptions.tmpRootOf(base));
    }

    private static List<String> reset(
            CheckpointLayout layout,
            String query,
            Warehouse warehouse,
            @Nullable Database database,
            Path tmpRoot)
            throws Exception {
        CheckpointDir checkpoint = new CheckpointDir(layout);
        org.apache.flink.core.fs.Path metadata = layout.metadataLocation();
        if (!Storage.exists(metadata)) {
            throw new IllegalArgumentException(
                    "query '"
                            + query
                            + "' has no checkpoint under "
                            + layout
                            + ": nothing to reset");
        }
        List<String> emptied = new ArrayList<>();
        try (CheckpointDir.Lock lock = checkpoint.lock(query)) {
            JsonNode identity = JsonFiles.readTree(metadata);
            String queryId = identity.path("id").asText();
            Set<String> written = new LinkedHashSet<>();
            identity.path("sinks").forEach(sink -> written.add(sink.asText()));
            identity.path("records").forEach(record -> written.add(record.asText()));
            // A table of the warehouse is this query's when it records this checkpoint (its id,
            // or its folder: a reset cut short) or, converted from the earlier format, the
            // query's name and no checkpoint yet.
            List<String> owned = new ArrayList<>();
            TableOwner here =
                    layout.isObjectStore()
                            ? new TableOwner(query, queryId, layout.location().toString())
                            : TableOwner.query(query, queryId, checkpoint.path(), warehouse);
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
                                    && records(warehouse, owner, layout))
                            || (owner.queryId() == null
                                    && owner.query().equals(query)
                                    && written.contains(table))) {
                        owned.add(table);
                    }
                } else if (written.contains(table)) {
                    throw new IllegalStateException(
                            LegacyTables.refusal(warehouse.tablePath(table).toString()));
                }
            }
            // A table of the SQL database is this query's when its claim names this checkpoint
            // (SqlTableOwners), or nobody claimed it (a database made before the claims) and no
            // warehouse table of its name belongs to another writer. Decided before anything is
            // deleted: a copy's reset is refused whole.
            List<String> ownedInDatabase = new ArrayList<>();
            SqlTableOwners owners = database == null ? null : new SqlTableOwners(database);
            TableOwner hereInDatabase =
                    owners == null ? null : owners.owner(query, queryId, layout);
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
            for (org.apache.flink.core.fs.Path part : layout.resetParts()) {
                Folders.deleteQuietly(part);
            }
            String newId = new IdentityStore(layout).renew(query);
            TableOwner newOwner =
                    layout.isObjectStore()
                            ? new TableOwner(query, newId, layout.location().toString())
                            : TableOwner.query(query, newId, checkpoint.path(), warehouse);
            for (String table : owned) {
                warehouse.empty(table, newOwner);
                emptied.add(table);
            }
            // The SQL database's table of the same name too (an update-mode run keeps its rows
            // there, beside the warehouse table of an earlier append run): both start empty.
            for (String table : ownedInDatabase) {
                owners.empty(table, hereInDatabase, owners.owner(query, newId, layout));
                if (!emptied.contains(table)) {
                    emptied.add(table);
                }
            }
            // What killed runs of the query left in <base>/_tmp/<query> (their next run would
            // remove it too): a reset leaves nothing of the query's earlier runs.
            RunTmpFolders.removeLeftovers(tmpRoot, query);
        }
        return emptied;
    }

    /** Whether {@code owner} records {@code layout} as its checkpoint. */
    private static boolean records(Warehouse warehouse, TableOwner owner, CheckpointLayout layout) {
        if (layout.isObjectStore()) {
            return layout.location().toString().equals(owner.checkpoint());
        }
        return layout.dir().toAbsolutePath().normalize().equals(warehouse.checkpointOf(owner));
    }
}
