package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.jobs.cli.output.Tables;
import org.flinkss.runtime.jdbc.Database;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.Warehouse;

import javax.annotation.Nullable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Where the data is: the options of every command that reads or writes a base and its tables. */
public final class DataOptions {

    @Option(
            names = "--base",
            paramLabel = "DIR",
            converter = Converters.LocalFolder.class,
            description =
                    "landing folder <base>/events and checkpoints <base>/_cp/<query> (default:"
                            + " ${DEFAULT-VALUE})")
    public Path base = Paths.get("data");

    @Option(
            names = "--warehouse",
            paramLabel = "DIR",
            converter = Converters.LocalFolder.class,
            description = "the tables (default: <base>/warehouse)")
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

    public Path warehouse() {
        return warehouse != null ? warehouse : base.resolve("warehouse");
    }

    public Warehouse openWarehouse() {
        return new Warehouse(warehouse());
    }

    public Database database() {
        return jdbcUrl != null ? new Database(jdbcUrl) : Database.sqliteIn(warehouse());
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
        boolean none = jdbcUrl == null && !Files.exists(Database.sqliteFileIn(warehouse()));
        return none ? null : database();
    }

    /** The landing folder of the course's generator. */
    public Path events() {
        return base.resolve("events");
    }

    public RunOptions.Builder applyTo(RunOptions.Builder run) {
        return run.base(base).warehouse(warehouse()).jdbcUrl(jdbcUrl);
    }
}
