package org.flinkss.runtime.table;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.checkpoint.ResetMarker;
import org.flinkss.runtime.table.delta.DeltaConstraints;
import org.flinkss.runtime.table.delta.DeltaSchema;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.SchemaGrowth;

import java.util.Map;
import java.util.Optional;

/**
 * Who writes each table of a warehouse: a table belongs to one writing query and its checkpoint (or
 * to one command), recorded in its properties ({@link TableOwner}) with its columns and {@link
 * TableMode}. A second writer is refused before any data moves; a moved base, a converted table and
 * a reset hand the table over.
 */
final class TableOwnership {

    private final TableFolders folders;

    TableOwnership(TableFolders folders) {
        this.folders = folders;
    }

    /**
     * Makes table {@code name} ready for its writer: creates it with these columns, owner and mode
     * ({@link TableMode}), or checks that the existing table is {@code owner}'s, with these columns
     * and mode. Refused, naming both, when another query or checkpoint writes it (issue 14, point
     * 4). A table emptied by {@code reset} takes its writer's new columns or mode (one {@code
     * REPLACE TABLE} commit); one converted from the earlier format is claimed by its query's first
     * run.
     */
    /**
     * {@link #own}, for a table whose columns may grow: a table that has fewer columns than {@code
     * rowType}, the others the same, is owned as it is and then gains the missing ones, nullable,
     * in a commit of its own ({@link DeltaTable#addColumns}); rows already in it read them as null.
     */
    void ownGrowing(String name, RowType rowType, TableOwner owner, TableMode mode) {
        Optional<DeltaTable.Head> head = folders.delta(name).head();
        RowType existing = head.map(DeltaTable.Head::rowType).orElse(rowType);
        if (existing.equals(rowType) || !SchemaGrowth.isGrowthOf(existing, rowType)) {
            own(name, rowType, owner, mode);
            return;
        }
        own(name, existing, owner, mode);
        folders.delta(name).addColumns(rowType);
    }

    void own(String name, RowType rowType, TableOwner owner, TableMode mode) {
        folders.refuseLegacy(name);
        DeltaTable table = folders.delta(name);
        // One reading of the log for the checks below (a run owns each of its tables at start).
        Optional<DeltaTable.Head> head = table.head();
        if (head.isEmpty()) {
            table.create(rowType, owner.properties(mode));
            return;
        }
        Map<String, String> properties = head.get().properties();
        TableOwner current = TableOwner.of(properties);
        if (current.sameAs(owner) && current.namesAnotherPlaceThan(owner)) {
            if (writtenByACopy(name, owner)) {
                throw new IllegalStateException(writtenByTheOriginal(name, current, owner));
            }
            // The base was moved (or its copy taken alone): this checkpoint writes the table now.
            table.setProperties(owner.writerProperties());
            properties = table.properties();
        }
        if (!current.sameAs(owner)) {
            if (current.queryId() == null && current.query().equals(owner.query())) {
                table.setProperties(owner.writerProperties());
                properties = table.properties();
            } else {
                throw new IllegalStateException(writtenByAnother(name, current, owner));
            }
        }
        RowType existing = head.get().rowType(); // no commit above changes the columns
        TableMode existingMode = TableMode.of(properties);
        if (DeltaConstraints.writableWith(existing, rowType) && existingMode == mode) {
            return;
        }
        if (table.snapshot().files().isEmpty()) {
            table.replace(rowType, owner.properties(mode));
            return;
        }
        if (existingMode == mode
                && !existing.equals(rowType)
                && DeltaSchema.withMicros(existing).equals(DeltaSchema.withMicros(rowType))) {
            // Same Delta schema, other recorded precision: Delta Kernel changes no schema of a
            // table without column mapping, and appending microseconds under a column recorded as
            // milliseconds would have this project's readers and Spark's see different rows.
            throw new IllegalStateException(
                    "table '"
                            + name
                            + "' at "
                            + folders.where(name)
                            + " was created by an earlier version with timestamps in milliseconds ("
                            + existing
                            + "); query '"
                            + owner.query()
                            + "' now keeps Spark's microseconds ("
                            + rowType
                            + "), and a Delta table's column types cannot change in place. Its rows"
                            + " stay readable (table show, export, --version). To go on, reset the"
                            + " query (reset "
                            + owner.query()
                            + ": the table is emptied in one commit, older versions stay readable"
                            + " until a vacuum, the next run reprocesses its input), or write to"
                            + " another warehouse.");
        }
        throw new IllegalStateException(
                "table '"
                        + name
                        + "' at "
                        + folders.where(name)
                        + (existing.equals(rowType)
                                ? " was written in "
                                        + existingMode
                                        + " mode, and query '"
                                        + owner.query()
                                        + "' now writes it in "
                                        + mode
                                        + " mode"
                                : " has columns "
                                        + existing
                                        + " but query '"
                                        + owner.query()
                                        + "' writes "
                                        + rowType)
                        + ". Reset the query (reset "
                        + owner.query()
                        + ") or write to another warehouse.");
    }

    /**
     * What {@link #own} would refuse for {@code owner}, reading only ({@code run --dry-run}): a
     * table of the earlier format, one another query or checkpoint writes, one a copy of this
     * checkpoint's base would write too. Empty when {@code own} would create or take the table; a
     * change of its columns or mode is {@code own}'s to make or refuse at the run.
     */
    Optional<String> refusal(String name, TableOwner owner) {
        try {
            folders.refuseLegacy(name);
        } catch (IllegalStateException e) {
            return Optional.of(e.getMessage());
        }
        Optional<DeltaTable.Head> head = folders.delta(name).head();
        if (head.isEmpty()) {
            return Optional.empty();
        }
        TableOwner current = TableOwner.of(head.get().properties());
        if (current.sameAs(owner)) {
            return current.namesAnotherPlaceThan(owner) && writtenByACopy(name, owner)
                    ? Optional.of(writtenByTheOriginal(name, current, owner))
                    : Optional.empty();
        }
        if (current.queryId() == null && current.query().equals(owner.query())) {
            return Optional.empty();
        }
        return Optional.of(writtenByAnother(name, current, owner));
    }

    private String writtenByTheOriginal(String name, TableOwner current, TableOwner owner) {
        return writtenBy(name, current)
                + ", and "
                + owner.describe(folders.rootOrNull())
                + " is a copy of that checkpoint (a copied base): both would write"
                + " it. Two bases sharing one --warehouse? Give each its own"
                + " --warehouse (a copied base's own warehouse folder is its"
                + " copy of the tables).";
    }

    private String writtenByAnother(String name, TableOwner current, TableOwner owner) {
        return writtenBy(name, current)
                + ", so "
                + owner.describe(folders.rootOrNull())
                + " cannot write it: "
                + resetCutShort(owner)
                        .orElse(
                                "a table belongs to one writing query and its"
                                        + " checkpoint. Two bases sharing one"
                                        + " --warehouse? Give each its own"
                                        + " --warehouse. To hand the table over,"
                                        + " delete its folder and run the new"
                                        + " writer.");
    }

    /**
     * The way out when the writer's checkpoint holds a reset that was cut short ({@link
     * ResetMarker}): then the table still records the checkpoint's identity from before the reset,
     * and {@code reset <query>} hands it over; no second base, nothing to delete.
     */
    private Optional<String> resetCutShort(TableOwner writer) {
        try {
            return ResetMarker.read(writer.checkpointLayout(folders.rootOrNull()))
                    .map(
                            m ->
                                    m.wayOut()
                                            + " (the table still records the checkpoint from before"
                                            + " the reset; do not delete its folder).");
        } catch (RuntimeException e) {
            return Optional.empty(); // a record that names no checkpoint here: no reset of it
        }
    }

    /** For refusals: {@code table 'name' (<folder>) is written by <owner>}. */
    private String writtenBy(String name, TableOwner current) {
        return "table '"
                + name
                + "' ("
                + folders.where(name)
                + ") is written by "
                + current.describe(folders.rootOrNull());
    }

    /**
     * Whether table {@code name} records as its writer the checkpoint of which {@code now} is a
     * copy: the same query id, at another place that still holds it (a copied base sharing this
     * warehouse). Neither may write or empty the table for the other.
     */
    boolean writtenByACopy(String name, TableOwner now) {
        TableOwner recorded = TableOwner.of(folders.existing(name).properties());
        return recorded.sameAs(now)
                && recorded.namesAnotherPlaceThan(now)
                && !inBaseOf(name, now)
                && recorded.stillHeldBeside(now, folders.rootOrNull());
    }

    /**
     * Whether the table lies in the base folder of the checkpoint that runs now ({@code
     * <base>/_cp/<query>}): then it is that base's own copy of the table (a copied base, or one
     * uploaded to S3), which no other base writes. Only a warehouse outside the base can be shared.
     */
    private boolean inBaseOf(String name, TableOwner now) {
        try {
            Path checkpoint = now.checkpointLayout(folders.rootOrNull()).location();
            Path cps = checkpoint.getParent();
            if (cps == null || cps.getParent() == null) {
                return false;
            }
            String base = comparable(cps.getParent().toUri());
            return comparable(java.net.URI.create(folders.folder(name))).startsWith(base);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** {@code scheme://authority/path/}, with {@code file} for a path without a scheme. */
    private static String comparable(java.net.URI uri) {
        String path = uri.normalize().getPath();
        return (uri.getScheme() == null ? "file" : uri.getScheme())
                + "://"
                + (uri.getAuthority() == null ? "" : uri.getAuthority())
                + (path.endsWith("/") ? path : path + "/");
    }

    /**
     * Empties table {@code name} in one commit ({@code REPLACE TABLE}: every data file removed, the
     * columns kept) and records {@code newOwner} as its writer: {@code reset}'s new checkpoint.
     * Older versions stay readable until a vacuum.
     */
    void empty(String name, TableOwner newOwner) {
        folders.refuseLegacy(name);
        DeltaTable table = folders.delta(name);
        TableMode mode = TableMode.of(table.properties());
        table.replace(table.rowType(), newOwner.properties(mode));
    }
}
