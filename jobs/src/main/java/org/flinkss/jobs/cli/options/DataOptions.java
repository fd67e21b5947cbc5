package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import org.flinkss.jobs.cli.output.Tables;
import org.flinkss.runtime.jdbc.Database;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import javax.annotation.Nullable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Where the data is: the options of every command that reads or writes a base and its tables. */
public final class DataOptions {

    /** The local base; null when {@link #objectStoreBase} is given instead. */
    public Path base = Paths.get("data");

    /**
     * --base on an object store ({@code s3://bucket/prefix}): only the landing commands take it.
     */
    @Nullable private org.apache.flink.core.fs.Path objectStoreBase;

    private final boolean takesObjectStoreBase;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The options of a command that keeps its base on the local disk. */
    public DataOptions() {
        this(false);
    }

    private DataOptions(boolean takesObjectStoreBase) {
        this.takesObjectStoreBase = takesObjectStoreBase;
    }

    /**
     * The options of a command that lands data ({@code land-events}, {@code land-customers}): its
     * {@code --base} may be on an object store ({@code s3://bucket/prefix}).
     */
    public static DataOptions landing() {
        return new DataOptions(true);
    }

    @Option(
            names = "--base",
            paramLabel = "DIR",
            converter = Converters.BaseFolder.class,
            defaultValue = "data",
            description =
                    "landing folder <base>/events and checkpoints <base>/_cp/<query> (default:"
                            + " ${DEFAULT-VALUE})")
    void base(Converters.Base given) {
        if (given.objectStore() == null) {
            base = given.local();
            objectStoreBase = null;
            return;
        }
        if (!takesObjectStoreBase) {
            throw new ParameterException(
                    command.commandLine(),
                    "Invalid value for option '--base': '"
                            + given.given()
                            + "' is not on the local disk: this command keeps the landing"
                            + " folder, checkpoints and tables on a local (or mounted) disk for"
                            + " now; give a folder (object storage: docs/object-storage.md)");
        }
        base = null;
        objectStoreBase = given.objectStore();
    }

    /** The base on any storage: the local folder, or the object store location. */
    public org.apache.flink.core.fs.Path baseLocation() {
        return objectStoreBase != null ? objectStoreBase : Storage.location(base);
    }

    /** Whether --base is on an object store (a landing command's). */
    public boolean objectStoreBase() {
        return objectStoreBase != null;
    }

    /** The landing folder {@code <base>/events} on any storage. */
    public org.apache.flink.core.fs.Path eventsLocation() {
        return new org.apache.flink.core.fs.Path(baseLocation(), "events");
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
        return warehouse != null && !Storage.isLocal(warehouse);
    }

    /** The SQLite file's folder: the warehouse, or {@code <base>/warehouse} beside one on S3. */
    private Path databaseFolder() {
        return objectStoreWarehouse() ? base.resolve("warehouse") : warehouse();
    }

    public Warehouse openWarehouse() {
        if (objectStoreBase != null) {
            StorageSetup.initialize(null);
            return new Warehouse(
                    warehouse != null
                            ? warehouse
                            : new org.apache.flink.core.fs.Path(objectStoreBase, "warehouse"));
        }
        if (objectStoreWarehouse()) {
            StorageSetup.initialize(base);
            return new Warehouse(warehouse);
        }
        return new Warehouse(warehouse());
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
        boolean none = jdbcUrl == null && !Files.exists(Database.sqliteFileIn(databaseFolder()));
        return none ? null : database();
    }

    /** The landing folder of the course's generator. */
    public Path events() {
        return base.resolve("events");
    }

    public RunOptions.Builder applyTo(RunOptions.Builder run) {
        if (objectStoreWarehouse()) {
            StorageSetup.initialize(base);
            return run.base(base).warehouse(warehouse).jdbcUrl(jdbcUrl);
        }
        return run.base(base).warehouse(warehouse()).jdbcUrl(jdbcUrl);
    }
}
