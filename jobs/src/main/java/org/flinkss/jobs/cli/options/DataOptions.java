package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.jobs.cli.output.Tables;
import org.flinkss.runtime.ops.StorageSetup;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import javax.annotation.Nullable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Where the data is: the options of every command that reads or writes a base and its tables. */
public final class DataOptions {

    /** The local base folder; null when --base is on an object store ({@link #baseLocation}). */
    public Path base = Paths.get("data");

    /** --base on an object store ({@code s3://bucket/prefix}); null when it is local. */
    @Nullable private org.apache.flink.core.fs.Path objectStoreBase;

    @Option(
            names = "--base",
            paramLabel = "DIR",
            defaultValue = "data",
            converter = Converters.BaseLocation.class,
            description =
                    "landing folder <base>/events and checkpoints <base>/_cp/<query>: a folder, or"
                            + " s3://bucket/prefix (default: ${DEFAULT-VALUE})")
    void base(org.apache.flink.core.fs.Path given) {
        if (Storage.isLocal(given)) {
            base = Storage.localFile(given, "--base");
            objectStoreBase = null;
        } else {
            base = null;
            objectStoreBase = given;
        }
    }

    /** --base as a URI: its local folder's, or {@code s3://bucket/prefix}. */
    public org.apache.flink.core.fs.Path baseLocation() {
        return objectStoreBase != null ? objectStoreBase : Storage.location(base);
    }

    /** Whether --base is on an object store ({@code s3://bucket/prefix}). */
    public boolean objectStoreBase() {
        return objectStoreBase != null;
    }

    /** The landing folder {@code <base>/events} on any storage. */
    public org.apache.flink.core.fs.Path eventsLocation() {
        return new org.apache.flink.core.fs.Path(baseLocation(), "events");
    }

    /**
     * The options of a command that lands data ({@code land-events}, {@code land-customers}); its
     * {@code --base} may be on an object store, as every command's.
     */
    public static DataOptions landing() {
        return new DataOptions();
    }

    @Option(
            names = "--warehouse",
            paramLabel = "DIR",
            converter = Converters.WarehouseFolder.class,
            description = "the tables: a folder or s3://bucket/prefix (default: <base>/warehouse)")
    org.apache.flink.core.fs.Path warehouse;

    @Option(
            names = "--jdbc-url",
            paramLabel = "URL",
            description =
                    "the database of upsert tables: jdbc:sqlite:<file> or"
                            + " jdbc:postgresql://host:port/db (default: SQLite in"
                            + " <warehouse>/warehouse.db); credentials from"
                            + " FLINKSS_JDBC_USER/FLINKSS_JDBC_PASSWORD or the file named by"
                            + " FLINKSS_JDBC_PROPERTIES")
    String jdbcUrl;

    /**
     * The local warehouse folder; refused, naming the warehouse, when --warehouse is on an object
     * store (a command that needs a local one).
     */
    public Path warehouse() {
        if (warehouse == null) {
            if (objectStoreBase != null) {
                throw new IllegalArgumentException(
                        "this command needs a local --warehouse, and "
                                + objectStoreBase
                                + "/warehouse is on an object store (docs/object-storage.md)");
            }
            return base.resolve("warehouse");
        }
        if (!Storage.isLocal(warehouse)) {
            throw new IllegalArgumentException(
                    "this command needs a local --warehouse, and "
                            + warehouse
                            + " is on an object store (docs/object-storage.md)");
        }
        return Storage.localFile(warehouse, "--warehouse");
    }

    /** Whether --warehouse is on an object store ({@code s3://bucket/prefix}). */
    public boolean objectStoreWarehouse() {
        return warehouse != null ? !Storage.isLocal(warehouse) : objectStoreBase != null;
    }

    /** The warehouse on an object store: --warehouse, else {@code <base>/warehouse}. */
    private org.apache.flink.core.fs.Path objectStoreWarehouseLocation() {
        return warehouse != null
                ? warehouse
                : new org.apache.flink.core.fs.Path(objectStoreBase, "warehouse");
    }

    /**
     * The SQLite file's folder: the warehouse, or {@code <base>/warehouse} beside one on S3. The
     * file stays local: with both on S3, give --jdbc-url or a local --warehouse.
     */
    private Path databaseFolder() {
        if (!objectStoreWarehouse()) {
            return warehouse();
        }
        if (objectStoreBase != null) {
            throw new IllegalArgumentException(
                    "the SQLite database of upsert tables is a local file, and both --base "
                            + objectStoreBase
                            + " and the warehouse "
                            + objectStoreWarehouseLocation()
                            + " are on an object store: give --jdbc-url (PostgreSQL), or a local"
                            + " --warehouse to hold warehouse.db (docs/object-storage.md)");
        }
        return base.resolve("warehouse");
    }

    /** Makes Flink's file systems ready for a base or warehouse on an object store. */
    public void initializeStorage() {
        StorageSetup.initialize(
                base != null
                        ? base
                        : Paths.get(System.getProperty("java.io.tmpdir"), "flinkss-storage"));
    }

    public Warehouse openWarehouse() {
        if (objectStoreBase != null && (warehouse == null || !Storage.isLocal(warehouse))) {
            StorageSetup.initialize(null);
            return reachable(objectStoreWarehouseLocation());
        }
        if (objectStoreBase != null) {
            StorageSetup.initialize(null);
            return new Warehouse(warehouse);
        }
        if (objectStoreWarehouse()) {
            initializeStorage();
            return reachable(objectStoreWarehouseLocation());
        }
        return new Warehouse(warehouse());
    }

    /**
     * A warehouse on an object store, listed once first: a wrong endpoint, credentials or bucket is
     * then one line naming what to check, before Delta Kernel meets it (which retries, logging each
     * attempt with its stack).
     */
    private static Warehouse reachable(org.apache.flink.core.fs.Path location) {
        BaseFolder.requireReachable(location, "--warehouse");
        return new Warehouse(location);
    }

    public Database database() {
        return jdbcUrl != null ? new Database(jdbcUrl) : Database.sqliteIn(databaseFolder());
    }

    /**
     * A table by name: a Delta table in the warehouse, else a table of the SQL database. Reading
     * creates nothing: a default database whose file does not exist holds no table.
     */
    public Tables tables() {
        return new Tables(openWarehouse(), existingDatabase());
    }

    /** The SQL database, or null for a default one whose file does not exist (no tables yet). */
    @Nullable
    public Database existingDatabase() {
        if (jdbcUrl == null && objectStoreBase != null && objectStoreWarehouse()) {
            return null; // no local SQLite file with a base and warehouse on S3: no SQL tables
        }
        boolean none = jdbcUrl == null && !Files.exists(Database.sqliteFileIn(databaseFolder()));
        return none ? null : database();
    }

    /** The landing folder of the course's generator. */
    public Path events() {
        return base.resolve("events");
    }

    public RunOptions.Builder applyTo(RunOptions.Builder run) {
        if (objectStoreBase != null) {
            initializeStorage();
            run.base(objectStoreBase).jdbcUrl(jdbcUrl);
            return warehouse == null
                    ? run
                    : Storage.isLocal(warehouse)
                            ? run.warehouse(warehouse())
                            : run.warehouse(warehouse);
        }
        if (objectStoreWarehouse()) {
            StorageSetup.initialize(base);
            return run.base(base).warehouse(warehouse).jdbcUrl(jdbcUrl);
        }
        return run.base(base).warehouse(warehouse()).jdbcUrl(jdbcUrl);
    }
}
