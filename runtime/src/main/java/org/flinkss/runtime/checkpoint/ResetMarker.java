package org.flinkss.runtime.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A reset under way, in the query's checkpoint ({@code reset.json}, {@link
 * CheckpointLayout#resetMarker}): written whole before a reset deletes anything, it says which
 * query is reset, the new query id it hands the tables to and which tables it empties (decided
 * while the old identity was still there to decide it). A reset killed part-way leaves it: the next
 * {@code reset} of the query completes that reset from it (the same tables, the same new id; each
 * step can be done twice), and a run of the query is refused, naming {@code reset <query>}, until
 * then. Removed when the reset is done.
 *
 * @param query the query's name
 * @param oldId the query id the tables recorded before the reset (null if the checkpoint had none)
 * @param newId the query id of the new checkpoint
 * @param tables the warehouse tables the reset empties
 * @param databaseTables the SQL database's tables the reset empties
 * @param started when the reset began
 */
public record ResetMarker(
        String query,
        String oldId,
        String newId,
        List<String> tables,
        List<String> databaseTables,
        Instant started) {

    public ResetMarker {
        tables = List.copyOf(tables);
        databaseTables = List.copyOf(databaseTables);
    }

    /** Writes this marker into {@code layout}'s checkpoint, whole (and on the disk). */
    public void write(CheckpointLayout layout) {
        ObjectNode node = JsonFiles.JSON.createObjectNode();
        node.put("query", query);
        node.put("oldId", oldId);
        node.put("newId", newId);
        ArrayNode t = node.putArray("tables");
        tables.forEach(t::add);
        ArrayNode d = node.putArray("databaseTables");
        databaseTables.forEach(d::add);
        node.put("started", started.toString());
        JsonFiles.write(layout.resetMarker(), node);
    }

    /** The marker a reset cut short left in {@code layout}'s checkpoint, if any. */
    public static Optional<ResetMarker> read(CheckpointLayout layout) {
        try {
            if (!Storage.exists(layout.resetMarker())) {
                return Optional.empty();
            }
            JsonNode node = JsonFiles.readTree(layout.resetMarker());
            return Optional.of(
                    new ResetMarker(
                            node.path("query").asText(),
                            node.hasNonNull("oldId") ? node.get("oldId").asText() : null,
                            node.path("newId").asText(),
                            texts(node.path("tables")),
                            texts(node.path("databaseTables")),
                            Instant.parse(node.path("started").asText())));
        } catch (IOException | RuntimeException e) {
            // Written whole (a rename or one PUT), so unreadable means changed by hand.
            throw new IllegalStateException(
                    "cannot read "
                            + Storage.shown(layout.resetMarker())
                            + ", the record of a reset of "
                            + layout
                            + " that did not finish ("
                            + e.getMessage()
                            + "): delete it and run reset again.",
                    e);
        }
    }

    /** Removes the marker of {@code layout}: its reset is done. */
    public static void remove(CheckpointLayout layout) {
        try {
            Storage.deleteTree(layout.resetMarker());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot delete " + layout.resetMarker() + ": " + e.getMessage(), e);
        }
    }

    /**
     * One line for a command that finds this reset unfinished: what was being reset, and that
     * {@code reset <query>} completes it.
     */
    public String wayOut() {
        return "a reset of query '"
                + query
                + "' was cut short ("
                + describe()
                + "): run 'reset "
                + query
                + "' to complete it, then run the query again";
    }

    /** {@code started <time>, emptying <tables>}. */
    public String describe() {
        return "started "
                + started
                + (tables.isEmpty() && databaseTables.isEmpty()
                        ? ""
                        : ", emptying " + String.join(", ", all()));
    }

    private List<String> all() {
        List<String> all = new ArrayList<>(tables);
        databaseTables.stream().filter(t -> !all.contains(t)).forEach(all::add);
        return all;
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(n -> texts.add(n.asText()));
        return texts;
    }
}
