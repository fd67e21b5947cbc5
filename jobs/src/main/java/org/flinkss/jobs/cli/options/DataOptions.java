package org.flinkss.jobs.cli.options;

import org.apache.flink.core.fs.Path;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import org.flinkss.course.queries.DatabaseWriters;
import org.flinkss.jobs.cli.output.Tables;
import org.flinkss.runtime.ops.StorageSetup;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.runtime.sink.jdbc.JdbcCredentials;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import javax.annotation.Nullable;

import java.io.File;
import java.nio.file.Files;

/** Where the data is: the options of every command that reads or writes a base and its tables. */
public final class DataOptions {

    /** --base: a local folder ({@code file:/...}) or {@code s3://bucket/prefix}. */
    private Path base = Storage.location("data");

    @Option(
            names = "--base",
            paramLabel = "DIR",
            defaultValue = "data",
            converter = LocationConverters.BaseLocation.class,
            description =
                    "landing folder <base>/events and checkpoints <base>/_cp/<query>: a folder, or"
                            + " s3://bucket/prefix (default: ${DEFAULT-VALUE})")
    void base(Path given) {
        base = given;
    }

    /** --base: {@code file:/...} or {@code s3://bucket/prefix}. */
    public Path base() {
        return base;
    }

    /** Whether --base is on an object store ({@code s3://bucket/prefix}). */
    public boolean objectStoreBase() {
        return !Storage.isLocal(base);
    }

    /**
     * The local folder of a local --base, for what only a local folder has (an OS file lock, a
     * write test, the report's file); null for one on an object store.
     */
    @Nullable
    public File localBase() {
        return objectStoreBase() ? null : Storage.localFile(base, "--base");
    }

    /** The landing folder {@code <base>/events} on any storage. */
    public Path events() {
        return new Path(base, "events");
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
            converter = LocationConverters.WarehouseFolder.class,
            description = "the tables: a folder or s3://bucket/prefix (default: <base>/warehouse)")
    @Nullable
    Path warehouse;

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

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /**
     * Refuses --jdbc-url (a usage error, exit 2) where it would be silently ignored: {@code what}
     * (a command, or a command and its query) never uses the SQL database.
     */
    public void refuseJdbcUrl(String what) {
        if (jdbcUrl != null) {
            throw new ParameterException(
                    command.commandLine(),
                    "--jdbc-url: '"
                            + what
                            + "' does not use the SQL database, so the URL would be ignored; "
                            + DatabaseWriters.described()
                            + " write it, and table count|show|export, status, reset, recompute"
                            + " and report read it. Leave --jdbc-url out");
        }
    }

    /** Whether --warehouse is on an object store ({@code s3://bucket/prefix}). */
    public boolean objectStoreWarehouse() {
        return !Storage.isLocal(warehouse());
    }

    /** The warehouse: --warehouse, else {@code <base>/warehouse}; local or on an object store. */
    public Path warehouse() {
        return warehouse != null ? warehouse : new Path(base, "warehouse");
    }

    /**
     * The SQLite file's folder: the warehouse, or {@code <base>/warehouse} beside one on S3. The
     * file stays local: with both on S3, give --jdbc-url or a local --warehouse.
     */
    private File databaseFolder() {
        if (!objectStoreWarehouse()) {
            return Storage.localFile(warehouse(), "--warehouse");
        }
        if (objectStoreBase()) {
            throw new IllegalArgumentException(
                    "the SQLite database of upsert tables is a local file, and both --base "
                            + base
                            + " and the warehouse "
                            + warehouse()
                            + " are on an object store: give --jdbc-url (PostgreSQL), or a local"
                            + " --warehouse to hold warehouse.db (docs/object-storage.md)");
        }
        return new File(localBase(), "warehouse");
    }

    /** Makes Flink's file systems ready for a base or warehouse on an object store. */
    public void initializeStorage() {
        StorageSetup.initialize(base);
    }

    public Warehouse openWarehouse() {
        if (objectStoreBase() || objectStoreWarehouse()) {
            initializeStorage();
        }
        return objectStoreWarehouse() ? reachable(warehouse()) : new Warehouse(warehouse());
    }

    /**
     * A warehouse on an object store, listed once first: a wrong endpoint, credentials or bucket is
     * then one line naming what to check, before Delta Kernel meets it (which retries, logging each
     * attempt with its stack).
     */
    private static Warehouse reachable(Path location) {
        BaseFolder.requireReachable(location, "--warehouse");
        return new Warehouse(location);
    }

    public Database database() {
        warnOfAPasswordInTheUrl();
        return jdbcUrl != null
                ? new Database(jdbcUrl)
                : Database.sqliteIn(databaseFolder().toPath());
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
        if (jdbcUrl == null && objectStoreBase() && objectStoreWarehouse()) {
            return null; // no local SQLite file with a base and warehouse on S3: no SQL tables
        }
        boolean none =
                jdbcUrl == null && !Files.exists(Database.sqliteFileIn(databaseFolder().toPath()));
        return none ? null : database();
    }

    public RunOptions.Builder applyTo(RunOptions.Builder run) {
        warnOfAPasswordInTheUrl();
        if (objectStoreBase() || objectStoreWarehouse()) {
            initializeStorage();
        }
        return run.base(base).warehouse(warehouse()).jdbcUrl(jdbcUrl);
    }

    /** Whether this command warned already (a command may open its database more than once). */
    private boolean passwordWarned;

    /** One line on stderr when --jdbc-url carries a password (never shown), naming the way out. */
    private void warnOfAPasswordInTheUrl() {
        String warning = jdbcUrl == null ? null : JdbcCredentials.urlPasswordWarning(jdbcUrl);
        if (warning != null && !passwordWarned) {
            passwordWarned = true;
            System.err.println(warning);
        }
    }
}
