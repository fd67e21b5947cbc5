package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * The warehouse a query's checkpoint writes to, recorded in its {@code metadata.json} at its first
 * run (field {@value #FIELD}) and checked at every run after, before anything moves.
 *
 * <p>Why: a checkpoint holds the state of the tables it writes (batch ids, staged files, offsets
 * committed with them). Spark binds a checkpoint to its sink's path; here a run with another {@code
 * --warehouse} (or with the flag forgotten, so the default {@code <base>/warehouse}) on the same
 * checkpoint used to commit batches into the other warehouse whose files lived in the first,
 * leaving both tables naming files that are gone. Another warehouse with the same checkpoint is a
 * user error, not a guess to make: refused in one line naming both and the flag to add.
 *
 * <p>A warehouse under the checkpoint's base is recorded relative to it ({@code
 * ${base}/warehouse}), as the identity records its paths, so that a base moved or copied with its
 * warehouse keeps running. A checkpoint made before the record existed runs and is recorded then.
 */
public final class WarehouseBinding {

    /** The field of {@code metadata.json} that holds the warehouse. */
    static final String FIELD = "warehouse";

    private final CheckpointLayout layout;

    public WarehouseBinding(CheckpointLayout layout) {
        this.layout = layout;
    }

    /**
     * Refuses a run of query {@code queryName} with {@code warehouse} if the checkpoint recorded
     * another; passes a checkpoint with no record (new, made by {@code reset}, or older than the
     * record).
     */
    public void check(String queryName, Path warehouse) {
        check(queryName, warehouse, "run");
    }

    /**
     * {@link #check(String, Path)} for a command of the query, {@code command} naming it in the
     * refusal ({@code run}, {@code reset}).
     */
    public void check(String queryName, Path warehouse, String command) {
        Optional<String> recorded = recorded();
        if (recorded.isEmpty()) {
            return;
        }
        String now = shown(warehouse);
        String then = resolved(recorded.get());
        if (same(then, now)) {
            return;
        }
        throw new QueryException(
                "query '"
                        + queryName
                        + "' refused: its checkpoint "
                        + layout
                        + " writes to the warehouse "
                        + then
                        + ", but this "
                        + command
                        + "'s warehouse is "
                        + now
                        + " (--warehouse, or <base>/warehouse when the flag is absent). A"
                        + " checkpoint is bound to its warehouse: "
                        + command
                        + " it again with --warehouse "
                        + then
                        + ", or use another --base for another warehouse. Nothing was changed.");
    }

    /** Records {@code warehouse} in the checkpoint's {@code metadata.json} if it holds none. */
    public void record(Path warehouse) {
        try {
            Optional<CheckpointMetadata> stored = CheckpointMetadata.read(layout);
            if (stored.isEmpty() || stored.get().recordedWarehouse().isPresent()) {
                return;
            }
            JsonNode json = JsonFiles.readTree(layout.metadata());
            if (!(json instanceof ObjectNode node)) {
                return; // not an identity: IdentityStore refuses such a file before a run
            }
            node.put(FIELD, portable(shown(warehouse)));
            JsonFiles.write(layout.metadata(), node);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot record the warehouse in "
                            + Storage.shown(layout.metadata())
                            + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /** The warehouse the checkpoint recorded, resolved against its base; empty if none. */
    public Optional<String> warehouse() {
        return recorded().map(this::resolved);
    }

    /**
     * Copies the record of the file as it is into {@code replacement}, a new content of the same
     * {@code metadata.json}: the identity is rewritten without knowing of it.
     */
    void keepIn(ObjectNode replacement) {
        recorded().ifPresent(r -> replacement.put(FIELD, r));
    }

    private Optional<String> recorded() {
        try {
            return CheckpointMetadata.read(layout).flatMap(CheckpointMetadata::recordedWarehouse);
        } catch (IOException e) {
            return Optional.empty(); // a damaged identity file: IdentityStore says so, by name
        }
    }

    private String portable(String warehouse) {
        return portable(warehouse, base());
    }

    private String resolved(String recorded) {
        return resolved(recorded, base());
    }

    /** {@code ${base}/...} for a warehouse under {@code base}, else as it is. */
    static String portable(String warehouse, @Nullable String base) {
        if (base != null && (warehouse.equals(base) || warehouse.startsWith(base + "/"))) {
            return IdentityStore.BASE + warehouse.substring(base.length());
        }
        return warehouse;
    }

    /** A recorded warehouse with {@code ${base}} replaced by {@code base}. */
    static String resolved(String recorded, @Nullable String base) {
        if (recorded.startsWith(IdentityStore.BASE) && base != null) {
            return base + recorded.substring(IdentityStore.BASE.length());
        }
        return recorded;
    }

    @Nullable
    private String base() {
        String base = IdentityStore.baseOf(layout);
        return base == null ? null : strip(base);
    }

    /** A local warehouse as its absolute folder, one on an object store as its URI. */
    private static String shown(Path warehouse) {
        return strip(Storage.shown(warehouse));
    }

    private static boolean same(String a, String b) {
        return strip(a).equals(strip(b));
    }

    private static String strip(String location) {
        String s = location;
        while (s.length() > 1 && s.endsWith("/") && !s.endsWith("//")) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }
}
