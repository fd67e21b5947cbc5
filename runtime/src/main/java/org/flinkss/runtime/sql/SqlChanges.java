package org.flinkss.runtime.sql;

import com.fasterxml.jackson.databind.JsonNode;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Spark's rules for a changed query on an existing checkpoint, for SQL files: the stateful
 * operators of the plan and the watermarks of its sources are the query's state; a file whose state
 * differs from the checkpoint's is refused, naming what changed, before any data moves. A changed
 * filter or projection leaves them as they are, and runs on.
 */
final class SqlChanges {

    private SqlChanges() {}

    /** The plan's stateful operators, then the watermark of each source it reads. */
    static List<String> identity(PlanShape shape, Map<String, SqlWatermark> watermarks) {
        List<String> identity = new ArrayList<>(shape.stateful());
        for (String source : shape.sources()) {
            SqlWatermark watermark = watermarks.get(source);
            if (watermark != null) {
                identity.add(watermark.describe(source));
            }
        }
        return identity;
    }

    /** Refuses a file whose stateful operators or watermarks are not the checkpoint's. */
    // file: the script's local file, named in the refusal (not a storage location).
    static void refuseChangedState(QueryContext context, Path file, List<String> stateful) {
        CheckpointLayout layout = context.scope().layout();
        List<String> recorded = recorded(layout);
        if (recorded == null || recorded.equals(stateful)) {
            return;
        }
        List<String> gone = new ArrayList<>(recorded);
        gone.removeAll(stateful);
        List<String> added = new ArrayList<>(stateful);
        added.removeAll(recorded);
        String change =
                gone.isEmpty() && added.isEmpty()
                        ? "the same stateful operators in another order"
                        : (gone.isEmpty() ? "" : "was " + String.join("; ", gone))
                                + (gone.isEmpty() || added.isEmpty() ? "" : ", ")
                                + (added.isEmpty() ? "" : "now " + String.join("; ", added));
        throw new QueryException(
                file
                        + ": query '"
                        + context.queryName()
                        + "' changed its state since its checkpoint "
                        + layout
                        + " ("
                        + change
                        + "). As in Spark, a changed aggregation, grouping key, window, join or"
                        + " watermark cannot go on from a checkpoint (a changed filter or"
                        + " projection can): start over with 'reset "
                        + context.queryName()
                        + "' (the checkpoint deleted, its tables emptied), or run the file under"
                        + " another --name.");
    }

    /** The stateful operators a checkpoint's identity records, or null if it has none yet. */
    private static List<String> recorded(CheckpointLayout layout) {
        try {
            if (!Storage.exists(layout.metadata())) {
                return null;
            }
            JsonNode identity = JsonFiles.readTree(layout.metadata());
            if (!identity.has("stateful") && !identity.has("sinks")) {
                return null;
            }
            List<String> stateful = new ArrayList<>();
            identity.path("stateful").forEach(n -> stateful.add(n.asText()));
            return stateful;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the identity in " + layout.metadata(), e);
        }
    }
}
