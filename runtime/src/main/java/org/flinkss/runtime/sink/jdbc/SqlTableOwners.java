package org.flinkss.runtime.sink.jdbc;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.TableOwner;

import javax.annotation.Nullable;

import java.io.File;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Who writes each table of a SQL database (issue 14, point 4): one row per table in {@code
 * _flinkss_tables}, in the same database, naming the writing query, its checkpoint's id and its
 * checkpoint, as a Delta table of the warehouse records its writer in its properties ({@code
 * Warehouse.own}). A query claims its table when it prepares, before any data moves, in the
 * transaction that creates the table; a second writer (another query, or the same query of another
 * base sharing the SQLite file of a {@code --warehouse}, or a {@code --jdbc-url}) is refused,
 * naming both checkpoints. {@code reset} empties a table only if its checkpoint holds the claim,
 * and hands the claim to its new checkpoint, as it does for a Delta table.
 *
 * <p>A database made before this record existed has none: a query claims its table at its next run,
 * and {@code reset} takes a table without a claim as its query's, as before.
 */
public final class SqlTableOwners {

    /**
     * The record's table; its name starts with {@code _}, so {@link Database#tables()} skips it.
     */
    public static final String TABLE = "_flinkss_tables";

    private final Database database;

    public SqlTableOwners(Database database) {
        this.database = Objects.requireNonNull(database, "database");
    }

    /**
     * The record of query {@code query} whose checkpoint {@code layout} has the id {@code queryId}:
     * the checkpoint relative to the folder of the SQLite file when both are on the local disk (so
     * a base that holds both can be moved or copied and its record stays true), else its URI.
     */
    public TableOwner owner(String query, String queryId, CheckpointLayout layout) {
        Path folder = database.sqliteFolder();
        if (folder != null && !layout.isObjectStore()) {
            return new TableOwner(
                    query,
                    queryId,
                    folder.relativize(
                                    Storage.localFile(layout.location(), "a checkpoint")
                                            .toPath()
                                            .toAbsolutePath()
                                            .normalize())
                            .toString());
        }
        return new TableOwner(query, queryId, layout.location().toString());
    }

    /** Work done in the claim's transaction (the table's creation). */
    @FunctionalInterface
    public interface InTransaction {
        void run(Connection c) throws SQLException;
    }

    /**
     * Claims table {@code name} for {@code owner} and runs {@code create} in the same transaction:
     * a table nobody claimed (new, or made before the record existed) becomes {@code owner}'s; one
     * {@code owner} holds stays its, and takes its new place if its base was moved; one whose
     * claimed table was dropped is handed over. Refused with an {@link IllegalStateException}
     * naming both checkpoints when another checkpoint writes it, a copy of this one included.
     */
    public void claim(String name, TableOwner owner, InTransaction create) throws SQLException {
        try (Connection c = database.connect()) {
            c.setAutoCommit(false);
            try {
                createRecord(c);
                if (!insert(c, name, owner)) {
                    TableOwner current = read(c, name).orElseThrow();
                    if (current.sameAs(owner)) {
                        if (current.namesAnotherPlaceThan(owner)) {
                            if (current.stillHeldBeside(owner, root())) {
                                throw new IllegalStateException(copyRefusal(name, current, owner));
                            }
                            // The base was moved: this checkpoint writes the table now.
                            update(c, name, owner);
                        }
                    } else if (!database.hasTable(c, name)) {
                        update(c, name, owner); // the claimed table was dropped: handed over
                    } else {
                        throw new IllegalStateException(
                                "table '"
                                        + name
                                        + "' ("
                                        + database.describe()
                                        + ") is written by "
                                        + current.describe(root())
                                        + ", so "
                                        + owner.describe(root())
                                        + " cannot write it: a table belongs to one writing query"
                                        + " and its checkpoint. "
                                        + sharing()
                                        + " To hand the table over, drop it (DROP TABLE "
                                        + name
                                        + ") and run the new writer.");
                    }
                }
                create.run(c);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** The claim on table {@code name}, empty when none is recorded. */
    public Optional<TableOwner> ownerOf(String name) throws SQLException {
        try (Connection c = database.connect()) {
            return database.hasTable(c, TABLE) ? read(c, name) : Optional.empty();
        }
    }

    /**
     * Whether {@code reset} of the checkpoint {@code here} (with its id before the reset) empties
     * table {@code name}: when it holds the claim (its id; or its place with another id, a reset
     * cut short after the checkpoint was renewed) or, with {@code unclaimedIsHers}, when nobody
     * does. Refused, naming both, when the claim is the checkpoint's that this one is a copy of:
     * resetting would empty that base's table.
     */
    public boolean emptiedByResetOf(String name, TableOwner here, boolean unclaimedIsHers)
            throws SQLException {
        Optional<TableOwner> claim = ownerOf(name);
        if (claim.isEmpty()) {
            return unclaimedIsHers;
        }
        TableOwner current = claim.get();
        if (current.sameAs(here)
                && current.namesAnotherPlaceThan(here)
                && current.stillHeldBeside(here, root())) {
            throw new IllegalStateException(
                    copyRefusal(name, current, here)
                            + " Resetting "
                            + here.describe(root())
                            + " would empty it; nothing was deleted.");
        }
        return current.sameAs(here) || holdsThePlaceOf(current, here);
    }

    private static boolean holdsThePlaceOf(TableOwner current, TableOwner here) {
        return current.query().equals(here.query())
                && Objects.equals(current.checkpoint(), here.checkpoint());
    }

    /**
     * {@code reset}'s emptying of table {@code name}, in one transaction: every row deleted, the
     * batches recorded for it by {@code here}'s checkpoint forgotten, and the claim handed to
     * {@code next} (the reset's new checkpoint). Refused if another checkpoint claimed the table
     * since {@link #emptiedByResetOf} said it was {@code here}'s.
     */
    public void empty(String name, TableOwner here, TableOwner next) throws SQLException {
        try (Connection c = database.connect()) {
            c.setAutoCommit(false);
            try {
                createRecord(c);
                Optional<TableOwner> current = read(c, name);
                if (current.isPresent()
                        && !current.get().sameAs(here)
                        && !holdsThePlaceOf(current.get(), here)) {
                    throw new IllegalStateException(
                            "table '"
                                    + name
                                    + "' ("
                                    + database.describe()
                                    + ") was claimed by "
                                    + current.get().describe(root())
                                    + " while "
                                    + here.describe(root())
                                    + " was reset: left as it is.");
                }
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("DELETE FROM " + name);
                }
                if (database.hasTable(c, "_flinkss_batches")) {
                    try (PreparedStatement batches =
                            c.prepareStatement(
                                    "DELETE FROM _flinkss_batches WHERE table_name = ? AND"
                                            + " query_id IN (?, ?)")) {
                        batches.setString(1, name);
                        batches.setString(2, here.queryId());
                        batches.setString(
                                3, current.map(TableOwner::queryId).orElse(here.queryId()));
                        batches.executeUpdate();
                    }
                }
                if (current.isPresent()) {
                    update(c, name, next);
                } else {
                    insert(c, name, next);
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** A relative checkpoint in a record is relative to the SQLite file's folder. */
    @Nullable
    private File root() {
        Path folder = database.sqliteFolder();
        return folder == null ? null : folder.toFile();
    }

    private String sharing() {
        return "Two bases sharing one SQL database (the SQLite file of one --warehouse, or one"
                + " --jdbc-url)? Give each its own --warehouse or --jdbc-url.";
    }

    private String copyRefusal(String name, TableOwner current, TableOwner copy) {
        return "table '"
                + name
                + "' ("
                + database.describe()
                + ") is written by "
                + current.describe(root())
                + ", and "
                + copy.describe(root())
                + " is a copy of that checkpoint (a copied base): both would write it. "
                + sharing();
    }

    private static void createRecord(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate(
                    "CREATE TABLE IF NOT EXISTS "
                            + TABLE
                            + " (table_name VARCHAR(255) NOT NULL PRIMARY KEY, query VARCHAR(255)"
                            + " NOT NULL, query_id VARCHAR(64) NOT NULL, checkpoint TEXT NOT NULL,"
                            + " claimed_at VARCHAR(40) NOT NULL)");
        }
    }

    /** Records {@code owner} unless a claim exists; whether it did. */
    private static boolean insert(Connection c, String name, TableOwner owner) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO "
                                + TABLE
                                + " (table_name, query, query_id, checkpoint, claimed_at) VALUES"
                                + " (?, ?, ?, ?, ?) ON CONFLICT (table_name) DO NOTHING")) {
            s.setString(1, name);
            s.setString(2, owner.query());
            s.setString(3, owner.queryId());
            s.setString(4, owner.checkpoint());
            s.setString(5, Instant.now().toString());
            return s.executeUpdate() == 1;
        }
    }

    private static void update(Connection c, String name, TableOwner owner) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "UPDATE "
                                + TABLE
                                + " SET query = ?, query_id = ?, checkpoint = ?, claimed_at = ?"
                                + " WHERE table_name = ?")) {
            s.setString(1, owner.query());
            s.setString(2, owner.queryId());
            s.setString(3, owner.checkpoint());
            s.setString(4, Instant.now().toString());
            s.setString(5, name);
            s.executeUpdate();
        }
    }

    private static Optional<TableOwner> read(Connection c, String name) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT query, query_id, checkpoint FROM "
                                + TABLE
                                + " WHERE table_name = ?")) {
            s.setString(1, name);
            try (ResultSet r = s.executeQuery()) {
                return r.next()
                        ? Optional.of(
                                new TableOwner(r.getString(1), r.getString(2), r.getString(3)))
                        : Optional.empty();
            }
        }
    }
}
