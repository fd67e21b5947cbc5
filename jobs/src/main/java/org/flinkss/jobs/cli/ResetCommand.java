package org.flinkss.jobs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.options.QueryArgument;
import org.flinkss.runtime.checkpoint.CheckpointDir;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.jdbc.Database;
import org.flinkss.runtime.table.Warehouse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Topic 11.14's "new checkpoint, reprocess": deletes a query's checkpoint and empties the tables it
 * writes, so that its next run reprocesses its sources from the start without duplicating a row.
 * Held under the query's lock; tables written by another query are left alone.
 */
@Command(
        name = "reset",
        mixinStandardHelpOptions = true,
        description =
                "Start a query over: delete its checkpoint and the tables it writes; the next run"
                        + " reprocesses from the start.")
public final class ResetCommand implements Callable<Integer> {

    @Mixin DataOptions data;
    @Mixin QueryArgument query;

    @Override
    public Integer call() throws Exception {
        QueryCatalog q = query.query().single("reset");
        List<String> emptied = reset(data.base, data.openWarehouse(), data.database(), q);
        System.out.println(
                q
                        + ": checkpoint deleted"
                        + (emptied.isEmpty()
                                ? ""
                                : ", tables emptied: " + String.join(", ", emptied))
                        + ". The next run reprocesses everything.");
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
        CheckpointDir checkpoint = new CheckpointDir(CheckpointLayout.of(base, query));
        Path metadata = checkpoint.layout().metadata();
        if (!Files.exists(metadata)) {
            throw new IllegalArgumentException(
                    "query '"
                            + query
                            + "' has no checkpoint under "
                            + checkpoint.path()
                            + ": nothing to reset");
        }
        List<String> emptied = new ArrayList<>();
        try (CheckpointDir.Lock lock = checkpoint.lock(query)) {
            JsonNode identity = JsonFiles.JSON.readTree(metadata.toFile());
            String queryId = identity.path("id").asText();
            List<String> written = new ArrayList<>();
            identity.path("sinks").forEach(sink -> written.add(sink.asText()));
            identity.path("records").forEach(record -> written.add(record.asText()));
            if (!identity.path("sinks").isArray()) {
                // A damaged metadata.json: the tables the query wrote, as the warehouse knows them.
                for (String table : warehouse.tables()) {
                    if (query.equals(warehouse.writer(table))) {
                        written.add(table);
                    }
                }
            }
            for (String table : written) {
                if (warehouse.exists(table) && warehouse.writer(table).equals(query)) {
                    Folders.deleteRecursively(warehouse.tablePath(table));
                    emptied.add(table);
                } else if (database.hasTable(table)) {
                    try (Connection c = database.connect();
                            Statement s = c.createStatement();
                            PreparedStatement batches =
                                    c.prepareStatement(
                                            "DELETE FROM _flinkss_batches WHERE query_id = ?")) {
                        s.executeUpdate("DELETE FROM " + table);
                        batches.setString(1, queryId);
                        batches.executeUpdate();
                    }
                    emptied.add(table);
                }
            }
            for (Path child :
                    List.of(
                            checkpoint.checkpoints(),
                            checkpoint.savepoints(),
                            checkpoint.path().resolve("progress"),
                            checkpoint.path().resolve("runs"),
                            checkpoint.path().resolve("offsets"),
                            metadata)) {
                Folders.deleteQuietly(child);
            }
        }
        return emptied;
    }
}
