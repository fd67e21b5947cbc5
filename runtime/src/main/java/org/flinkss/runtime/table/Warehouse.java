package org.flinkss.runtime.table;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaStorage;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.LegacyTables;

import javax.annotation.Nullable;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The folder of tables: {@code <warehouse>/<name>/} holds table {@code name}, a Delta Lake table
 * (Parquet data files and a {@code _delta_log/}, see {@link DeltaTable}) that any Delta reader
 * reads as it is. A table's properties record its columns' Flink types, its writer ({@link
 * TableOwner}) and how it is written ({@link TableMode}).
 *
 * <p>A facade over three jobs: names and places ({@link TableFolders}, the one place that maps a
 * table's name to its folder), ownership ({@link TableOwnership}: which query's checkpoint writes a
 * table) and the clean-up of uncommitted files ({@link UncommittedFiles}).
 *
 * <p>A folder of the earlier format (Parquet part files and a {@code _table.json}) is refused by
 * every method that reads or writes it, with the command that converts it ({@link #convert}).
 */
public final class Warehouse {

    /**
     * {@link TableMode#APPENDED}, kept for callers written when modes were strings.
     *
     * @deprecated use {@link TableMode#APPENDED}
     */
    @Deprecated public static final TableMode APPENDED = TableMode.APPENDED;

    /**
     * {@link TableMode#REPLACED}, kept for callers written when modes were strings.
     *
     * @deprecated use {@link TableMode#REPLACED}
     */
    @Deprecated public static final TableMode REPLACED = TableMode.REPLACED;

    private final TableFolders folders;
    private final TableOwnership ownership;
    private final UncommittedFiles uncommitted;

    /**
     * A warehouse anywhere Flink's file systems reach: a local folder ({@code file:} URI), or an
     * object store ({@code s3://bucket/prefix}), where its tables are Delta tables under that
     * prefix.
     */
    public Warehouse(Path location) {
        this(new TableFolders(location));
    }

    private Warehouse(TableFolders folders) {
        this.folders = folders;
        this.ownership = new TableOwnership(folders);
        this.uncommitted = new UncommittedFiles(folders);
    }

    // ---------------------------------------------------------------- names and places

    /** The warehouse's folder as a URI ({@code file:/...} or {@code s3://bucket/prefix}). */
    public Path location() {
        return folders.location();
    }

    /** Whether the warehouse is on the local disk (not an object store). */
    public boolean isLocal() {
        return folders.isLocal();
    }

    /** For messages: the local folder, or the object store URI. */
    public String where() {
        return folders.where();
    }

    /**
     * The checkpoint a table's owner records (relative to a local warehouse, or a URI); null when
     * it records none.
     */
    @Nullable
    public CheckpointLayout checkpointOf(TableOwner owner) {
        return owner.checkpoint() == null ? null : owner.checkpointLayout(folders.rootOrNull());
    }

    /** The table's folder as a URI, for descriptions: a local one as {@code java.nio} names it. */
    public String uri(String name) {
        return folders.uri(name);
    }

    /** The table's folder as a Flink path (local or on an object store). */
    public Path tableLocation(String name) {
        return folders.tableLocation(name);
    }

    /** The table's folder as a URI, for Flink's and Delta Kernel's file systems. */
    public String folder(String name) {
        return folders.folder(name);
    }

    /** The Delta table of a name; it need not exist. */
    public DeltaTable delta(String name) {
        return folders.delta(name);
    }

    /** Whether the warehouse has a table of this name (a folder of the earlier format counts). */
    public boolean exists(String name) {
        return folders.exists(name);
    }

    /** Whether the table is a folder of the earlier format, not converted yet. */
    public boolean isLegacy(String name) {
        return folders.isLegacy(name);
    }

    /** Every table's name, sorted (folders of the earlier format included). */
    public List<String> tables() {
        return folders.tables();
    }

    // ---------------------------------------------------------------- writers

    /**
     * Makes table {@code name} ready for its writer: creates it with these columns, owner and mode,
     * or checks that the existing table is {@code owner}'s, with these columns and mode. Refused,
     * naming both, when another query or checkpoint writes it (issue 14, point 4). A table emptied
     * by {@code reset} takes its writer's new columns or mode (one {@code REPLACE TABLE} commit);
     * one converted from the earlier format is claimed by its query's first run.
     */
    public void own(String name, RowType rowType, TableOwner owner, TableMode mode) {
        ownership.own(name, rowType, owner, mode);
    }

    /**
     * What {@link #own} would refuse for {@code owner}, reading only: another query or checkpoint
     * writing table {@code name}, or a table of the earlier format. Empty when a run would create
     * or take it.
     */
    public Optional<String> ownershipRefusal(String name, TableOwner owner) {
        return ownership.refusal(name, owner);
    }

    /**
     * {@link #own} for a table whose columns grow with its data: an existing table with fewer
     * columns, the others the same, gains the missing ones (nullable) in a commit of its own.
     */
    public void ownGrowing(String name, RowType rowType, TableOwner owner, TableMode mode) {
        ownership.ownGrowing(name, rowType, owner, mode);
    }

    /**
     * Whether table {@code name} records as its writer the checkpoint of which {@code now} is a
     * copy: the same query id, at another place that still holds it (a copied base sharing this
     * warehouse). Neither may write or empty the table for the other.
     */
    public boolean writtenByACopy(String name, TableOwner now) {
        return ownership.writtenByACopy(name, now);
    }

    /**
     * Empties table {@code name} in one commit ({@code REPLACE TABLE}: every data file removed, the
     * columns kept) and records {@code newOwner} as its writer: {@code reset}'s new checkpoint.
     * Older versions stay readable until a vacuum.
     */
    public void empty(String name, TableOwner newOwner) {
        ownership.empty(name, newOwner);
    }

    /**
     * Deletes the data files of query {@code queryId} (their names start with its id) that the
     * table never committed: files of attempts that failed, or of batches found already committed.
     * Files that some version removed (superseded results, a reset) stay for readers of older
     * versions until a vacuum. Call it only when no run of the query is active.
     *
     * @return how many files were deleted
     */
    public int deleteUncommitted(String name, String queryId) {
        return deleteUncommitted(name, queryId, null).deleted();
    }

    /** What {@link #deleteUncommitted(String, String, Path)} did. */
    public record Cleanup(int deleted, boolean replayed) {

        static final Cleanup NOTHING = new Cleanup(0, false);
    }

    /**
     * {@link #deleteUncommitted(String, String)} that remembers where it ended, in {@code record}
     * (a small file of the query's checkpoint; null: none): the table's version then, and a digest
     * of the names of the query's files left in the folder, all of them committed by that version.
     * The next call lists the folder and reads only the log entries of the versions since: when the
     * query's files are exactly the recorded ones plus files those versions added, none can be
     * uncommitted, and the table's snapshot is not replayed (an incremental run's clean-up is then
     * one listing and a log entry or two, not the whole table's log). Anything else (a file no
     * version since added: a killed run's or a failed attempt's; a file gone; no record, one of
     * another query id or table folder, a log entry cleaned up) replays the snapshot as {@link
     * #deleteUncommitted(String, String)} does, and records the result. A file is deleted only by
     * that replay, so the record can save work but never make a committed file look uncommitted.
     *
     * @return how many files were deleted, and whether the snapshot was replayed
     */
    public Cleanup deleteUncommitted(String name, String queryId, @Nullable Path record) {
        return uncommitted.deleteUncommitted(name, queryId, record);
    }

    /**
     * Converts a table of the earlier format in place ({@code table convert}), recording {@code
     * owner} as its writer when its query's checkpoint is known.
     *
     * @return the Delta table
     */
    public DeltaTable convert(String name, @Nullable TableOwner owner) {
        if (!isLegacy(name)) {
            DeltaTable table = delta(name);
            if (table.exists()) {
                return table;
            }
            throw new IllegalArgumentException(
                    "no table '" + name + "' of the earlier format in warehouse " + where());
        }
        Map<String, String> properties = new HashMap<>();
        if (owner != null) {
            properties.putAll(owner.writerProperties());
        }
        return LegacyTables.convert(
                Storage.localFile(tableLocation(name), "a table of the earlier format"),
                DeltaStorage.flink(),
                properties);
    }

    // ---------------------------------------------------------------- readers

    /** The table, refused with a clear message if it is missing or of the earlier format. */
    public DeltaTable existing(String name) {
        return folders.existing(name);
    }

    /** How the table is written. */
    public TableMode writtenBy(String name) {
        return TableMode.of(existing(name).properties());
    }

    /** The query (or command) that writes a table. */
    public String writer(String name) {
        return owner(name).query();
    }

    /** Who writes a table. */
    public TableOwner owner(String name) {
        return TableOwner.of(existing(name).properties());
    }

    public RowType rowType(String name) {
        return existing(name).rowType();
    }

    /** The table as of its current version. */
    public DeltaSnapshot snapshot(String name) {
        return existing(name).snapshot();
    }

    /**
     * The table as of {@code version} if given, else as of the newest version committed at or
     * before {@code time} if given, else now (Delta's time travel).
     */
    public DeltaSnapshot snapshot(String name, @Nullable Long version, @Nullable Instant time) {
        DeltaTable table = existing(name);
        if (version != null) {
            return table.snapshotAt(version);
        }
        return time != null ? table.snapshotAsOf(time) : table.snapshot();
    }

    /** The rows of the current version, from the files' statistics (no data is read). */
    public long count(String name) {
        return snapshot(name).count();
    }

    public List<RowData> rows(String name) {
        return snapshot(name).rows();
    }

    /** Rows as Java values (Long, Integer, String, Instant, Double ...), sorted by every column. */
    public List<List<Object>> sortedValues(String name) {
        return sortedValues(snapshot(name));
    }

    /** A snapshot's rows as Java values, sorted by every column. */
    public static List<List<Object>> sortedValues(DeltaSnapshot snapshot) {
        RowType type = snapshot.rowType();
        List<List<Object>> values = new ArrayList<>();
        for (RowData row : snapshot.rows()) {
            values.add(RowValues.toList(row, type));
        }
        values.sort(RowValues.ORDER);
        return values;
    }
}
