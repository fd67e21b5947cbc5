package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    private final CheckpointLayout layout;

    public IdentityStore(CheckpointLayout layout) {
        this.layout = layout;
    }

    /**
     * Refuses a checkpoint written with another layout version, naming the command that starts
     * over. A directory without {@code metadata.json} (a first run) passes.
     */
    public void checkLayout(String queryName) {
        Optional<CheckpointMetadata> stored = read(queryName);
        if (stored.isEmpty()) {
            return;
        }
        JsonNode version = stored.get().layoutVersion();
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
                        + layout
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
        Optional<CheckpointMetadata> read = read(identity.name());
        if (read.isEmpty()) {
            String id = UUID.randomUUID().toString();
            write(portable(identity, base()), id);
            return id;
        }
        // What a run may grow is the run's, not recorded: carried past the JSON round trip.
        identity = portable(identity, base()).growing(identity.growingTables());
        CheckpointMetadata stored = read.get();
        String id = stored.queryId();
        if (!stored.hasIdentity() && !id.isEmpty()) {
            // A checkpoint that reset made: its id is the query's from now on.
            write(identity, id);
            return id;
        }
        // Paths under the base are kept relative to it: the base may have been moved or copied
        // since. An identity recorded with absolute paths (an earlier version) names the base it
        // was made in, and is read relative to that one.
        String recordedBase = stored.recordedBase();
        QueryIdentity existing =
                portable(stored.identity(), recordedBase.isEmpty() ? base() : recordedBase);
        if (stored.hasRecordedBase()) {
            write(existing, id); // recorded relative to the base from now on
        }
        QueryException refused = refusal(existing, identity);
        if (refused != null) {
            throw refused;
        }
        if (ConfRecord.recordsLess(existing, identity)) {
            // Made before the policy was recorded (so under min, which the run asked for).
            existing = existing.withConf(identity.conf());
            write(existing, id);
        }
        if (existing.grownBy(identity)) {
            // Columns a run of a growing table added (addNewColumns): the checkpoint goes on.
            write(existing.withRecords(identity.records()).withTablesOf(identity), id);
        } else if (!existing.records().equals(identity.records())) {
            // Same query, with record tables a later version added: list them for reset.
            write(existing.withRecords(identity.records()), id);
        }
        return id;
    }

    /**
     * What {@link #claim} would say of {@code identity}, writing nothing ({@code run --dry-run}):
     * empty if the checkpoint is new or serves this query, else the refusal's message.
     */
    public Optional<String> check(QueryIdentity identity) {
        Optional<CheckpointMetadata> read = read(identity.name());
        if (read.isEmpty() || !read.get().hasIdentity()) {
            return Optional.empty();
        }
        identity = portable(identity, base()).growing(identity.growingTables());
        String recordedBase = read.get().recordedBase();
        QueryIdentity existing =
                portable(read.get().identity(), recordedBase.isEmpty() ? base() : recordedBase);
        return Optional.ofNullable(refusal(existing, identity)).map(Throwable::getMessage);
    }

    /** Why a checkpoint of {@code existing} cannot serve {@code identity}, or null if it can. */
    @Nullable
    private QueryException refusal(QueryIdentity existing, QueryIdentity identity) {
        if (!existing.sameQuery(identity)) {
            return new QueryException(
                    "checkpoint "
                            + layout
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
            return new QueryException(
                    "checkpoint "
                            + layout
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
        return ConfRecord.refusal(layout, existing, identity);
    }

    /** How the identity writes the base folder in the paths of its sources and sinks. */
    static final String BASE = "${base}";

    /**
     * {@code identity} with the paths under the base folder {@code base} ({@code
     * <base>/_cp/<query>} is the checkpoint) in its sources and sinks written relative to it, as
     * {@value #BASE}{@code /events/...}: the landing folder, the warehouse's tables, the SQL
     * database's file. The identity then does not depend on where the base is, so a base can be
     * moved or copied. A path is replaced only where it starts ({@code file:/base/...}, {@code
     * /base/...} after a {@code [}, a space or a {@code :}), never inside a longer path; a
     * warehouse outside the base stays absolute.
     */
    static QueryIdentity portable(QueryIdentity identity, @Nullable String base) {
        if (base == null) {
            return identity; // a checkpoint outside any base
        }
        Pattern under =
                Pattern.compile(
                        "(?<=^|[\\[\\s:,=])(?:file://|file:)?" + Pattern.quote(base) + "(?=/|]|$)");
        ObjectNode json = identity.toJson();
        for (String field : List.of("sources", "sinks")) {
            JsonNode absolute = json.path(field).deepCopy();
            ArrayNode relative = json.putArray(field);
            for (JsonNode description : absolute) {
                relative.add(
                        under.matcher(description.asText())
                                .replaceAll(Matcher.quoteReplacement(BASE)));
            }
        }
        return QueryIdentity.fromJson(json);
    }

    @Nullable
    private String base() {
        return baseOf(layout);
    }

    /** The base folder of a checkpoint ({@code <base>/_cp/<query>}), or null if none. */
    @Nullable
    static String baseOf(CheckpointLayout layout) {
        Path parent = layout.location().getParent();
        if (parent == null
                || !parent.getName().equals(CheckpointLayout.CHECKPOINTS_FOLDER)
                || parent.getParent() == null) {
            return null;
        }
        // A local base as its folder, one on an object store as its URI: as identities name it.
        return Storage.shown(parent.getParent());
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
        return renew(queryName, UUID.randomUUID().toString());
    }

    /** {@link #renew(String)} with the new id {@code id} (a reset's, chosen before it began). */
    public String renew(String queryName, String id) {
        ObjectNode node = JsonFiles.JSON.createObjectNode();
        node.put("name", queryName);
        node.put("id", id);
        node.put(CheckpointMetadata.LAYOUT_FIELD, CheckpointLayout.VERSION);
        JsonFiles.write(layout.metadata(), node);
        return id;
    }

    private void write(QueryIdentity identity, String id) {
        ObjectNode node = CheckpointMetadata.json(identity, id);
        new WarehouseBinding(layout).keepIn(node); // recorded at the first run, kept since
        JsonFiles.write(layout.metadata(), node);
    }

    /**
     * The identity as stored, if any; a file that is empty, cut short or not a JSON object (a disk
     * that filled up, an editor) stops the run, naming it and the way out.
     */
    private Optional<CheckpointMetadata> read(String queryName) {
        Path meta = layout.metadata();
        String problem;
        try {
            Optional<CheckpointMetadata> stored = CheckpointMetadata.read(layout);
            if (stored.isEmpty()) {
                return stored;
            }
            problem = stored.get().problem();
            if (problem == null) {
                return stored;
            }
        } catch (IOException e) {
            problem = "it is not valid JSON: " + e.getMessage().split("\n")[0];
        }
        throw new QueryException(
                "checkpoint "
                        + layout
                        + " of query '"
                        + queryName
                        + "' cannot be used: its identity file "
                        + Storage.shown(meta)
                        + " is damaged ("
                        + problem
                        + "). Put back an intact copy of that file, or start over with 'reset "
                        + queryName
                        + "' (the checkpoint deleted, its tables emptied; the next run"
                        + " reprocesses everything).");
    }
}
