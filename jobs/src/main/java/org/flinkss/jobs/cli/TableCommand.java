package org.flinkss.jobs.cli;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.Converters;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.options.HelpOptions;
import org.flinkss.jobs.cli.output.Stdout;
import org.flinkss.jobs.cli.output.TablePrinter;
import org.flinkss.jobs.cli.output.Tables;
import org.flinkss.runtime.ops.QueryCheckpoint;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.FinalRows;
import org.flinkss.runtime.table.RowValues;
import org.flinkss.runtime.table.TableOwner;
import org.flinkss.runtime.table.TableVacuum;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.Completeness;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.runtime.table.delta.LegacyTables;
import org.flinkss.runtime.table.delta.VacuumResult;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code table count|show|export|history|changes|vacuum|convert|repair <name>}: a Delta table of
 * the warehouse (or, for reading, a table of the SQL database).
 */
@Command(
        name = "table",
        mixinStandardHelpOptions = true,
        description = "Read and maintain a table of the warehouse.",
        subcommands = {
            TableCommand.Count.class,
            TableCommand.Show.class,
            TableCommand.Export.class,
            TableCommand.History.class,
            TableChangesCommand.class,
            TableCommand.Vacuum.class,
            TableCommand.Convert.class,
            TableRepairCommand.class,
            TableConstraintCommand.class
        })
public final class TableCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        return CommandGroup.noCommandNamed(spec);
    }

    /** A subcommand on one table: its name, the data options and UTF-8 standard output. */
    abstract static class OnTable implements Callable<Integer> {
        @Mixin DataOptions data;

        @Parameters(paramLabel = "TABLE")
        String table;

        @Override
        public final Integer call() {
            PrintStream out = Stdout.utf8();
            run(out);
            out.flush();
            return 0;
        }

        abstract void run(PrintStream out);
    }

    @Command(name = "count", mixinStandardHelpOptions = true, description = "Number of rows.")
    static final class Count extends OnTable {
        @Override
        void run(PrintStream out) {
            BaseFolder.refuseFile(data);
            Tables tables = data.tables();
            out.println(tables.count(table));
            tables.note(table).ifPresent(Stdout.utf8ErrStream()::println);
        }
    }

    /** {@code --version N | --timestamp T}: which version of a Delta table to read. */
    static final class AsOf {
        @Option(
                names = "--version",
                paramLabel = "N",
                converter = Converters.TableVersion.class,
                description = "read the table as of version N (Delta time travel; see history)")
        Long version;

        @Option(
                names = "--timestamp",
                paramLabel = "T",
                converter = Converters.Timestamp.class,
                description =
                        "read the table as of the newest version committed at or before T"
                                + " (2025-03-01T00:00:00Z, UTC)")
        Instant timestamp;
    }

    @Command(name = "show", description = "The first rows as a grid, like the course's display().")
    static final class Show extends OnTable {
        @Mixin HelpOptions help;

        @Option(
                names = "--limit",
                defaultValue = "20",
                converter = Converters.PositiveInt.class,
                description = "rows to show (default: ${DEFAULT-VALUE})")
        int limit;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        AsOf asOf = new AsOf();

        @Option(
                names = "--final",
                description =
                        "only the rows of windows that are final: those ending at or before the"
                                + " bound the table's newest commit records (its"
                                + " flinkss.finalBefore; see history)")
        boolean finalOnly;

        @Override
        void run(PrintStream out) {
            BaseFolder.refuseFile(data);
            if (finalOnly) {
                data.refuseJdbcUrl("table show --final"); // Delta tables only
                out.print(
                        TablePrinter.show(
                                FinalRows.of(
                                        data.openWarehouse(), table, asOf.version, asOf.timestamp),
                                limit));
                return;
            }
            Tables tables = data.tables();
            out.print(TablePrinter.show(tables, table, limit, asOf.version, asOf.timestamp));
            Warehouse warehouse = data.openWarehouse();
            if (asOf.version == null && asOf.timestamp == null && warehouse.exists(table)) {
                TableConstraintCommand.lines(warehouse.delta(table)).forEach(out::println);
            }
            tables.note(table).ifPresent(Stdout.utf8ErrStream()::println);
        }
    }

    @Command(
            name = "export",
            description = "All rows, sorted by every column, with one header line.")
    static final class Export extends OnTable {
        @Mixin HelpOptions help;

        @Option(names = "--csv", required = true, description = "as CSV (the only format so far)")
        boolean csv;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        AsOf asOf = new AsOf();

        @Override
        void run(PrintStream out) {
            BaseFolder.refuseFile(data);
            TablePrinter.export(data.tables(), table, out, asOf.version, asOf.timestamp);
        }
    }

    @Command(
            name = "history",
            mixinStandardHelpOptions = true,
            description =
                    "The table's versions, newest first: time, operation, the writing query's"
                            + " batch id, rows added and files removed (DESCRIBE HISTORY), and"
                            + " the batch's watermark and final bound (windows ending at or"
                            + " before it are final) where the commit records them, and what a"
                            + " commit changed of the schema and constraints (schema: +col TYPE,"
                            + " constraint +name).")
    static final class History extends OnTable {
        @Option(
                names = "--limit",
                defaultValue = "20",
                converter = Converters.PositiveInt.class,
                description = "versions to show (default: ${DEFAULT-VALUE})")
        int limit;

        @Override
        void run(PrintStream out) {
            data.refuseJdbcUrl("table history"); // Delta tables only
            List<List<Object>> rows = new ArrayList<>();
            for (HistoryEntry e : data.openWarehouse().existing(table).history(limit)) {
                rows.add(
                        Arrays.asList(
                                e.version(),
                                e.timestamp(),
                                e.operation(),
                                e.batchId() < 0 ? null : e.batchId(),
                                e.rowsAdded(),
                                e.filesAdded(),
                                e.filesRemoved(),
                                e.completeness().parameters().get(Completeness.WATERMARK),
                                e.completeness().parameters().get(Completeness.FINAL_BEFORE),
                                e.schemaChange().isEmpty() ? null : e.schemaChange()));
            }
            out.print(
                    RowValues.grid(
                            List.of(
                                    "version",
                                    "timestamp",
                                    "operation",
                                    "batch_id",
                                    "rows_added",
                                    "files_added",
                                    "files_removed",
                                    "watermark",
                                    "final_before",
                                    "schema_change"),
                            rows));
        }
    }

    /** A retention: a duration (168h, 30min) or days (7d, "7 days"). */
    static final class Retention implements ITypeConverter<Duration> {
        private static final Pattern DAYS = Pattern.compile("(\\d+)\\s*(d|days?)");

        @Override
        public Duration convert(String text) {
            String t = text.trim().toLowerCase(Locale.ROOT);
            Matcher days = DAYS.matcher(t);
            if (days.matches()) {
                return Duration.ofDays(Long.parseLong(days.group(1)));
            }
            return new Converters.PositiveDuration().convert(text);
        }
    }

    @Command(
            name = "vacuum",
            mixinStandardHelpOptions = true,
            description =
                    "Delete data files the table no longer references (superseded by complete mode,"
                        + " a recompute or a reset; left by failed attempts) once older than the"
                        + " retention, as Delta's VACUUM.")
    static final class Vacuum extends OnTable {
        @Option(
                names = "--retain",
                paramLabel = "DURATION",
                converter = Retention.class,
                description =
                        "keep files unreferenced for less than this (7d, 168h; default: Delta's 7"
                                + " days). Older versions of the table stay readable this long.")
        Duration retain = DeltaTable.DEFAULT_RETENTION;

        @Option(
                names = "--force",
                description =
                        "allow a retention shorter than the table's (7 days), as Delta's"
                                + " retentionDurationCheck=false: only when no reader of an older"
                                + " version is active (the files a run of the writer staged and"
                                + " has not committed are kept whatever this says)")
        boolean force;

        @Option(names = "--dry-run", description = "list what would be deleted, delete nothing")
        boolean dryRun;

        @Override
        void run(PrintStream out) {
            data.refuseJdbcUrl("table vacuum"); // Delta tables only
            TableVacuum.Outcome outcome;
            try {
                outcome =
                        new TableVacuum(data.openWarehouse()).vacuum(table, retain, force, dryRun);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("table " + table + ": " + e.getMessage(), e);
            }
            VacuumResult result = outcome.result();
            if (dryRun) {
                result.deleted().forEach(out::println);
            }
            out.println(
                    "table "
                            + table
                            + ": "
                            + (dryRun ? "would delete " : "deleted ")
                            + result.deleted().size()
                            + " unreferenced data file(s), "
                            + result.bytes()
                            + " bytes (retention "
                            + retain
                            + ")");
            if (outcome.keptWhy() != null) {
                out.println(
                        "table "
                                + table
                                + ": kept "
                                + result.keptStaged()
                                + " unreferenced data file(s) "
                                + outcome.keptWhy());
            }
        }
    }

    @Command(
            name = "convert",
            mixinStandardHelpOptions = true,
            description =
                    "Make a table written by an earlier version of flinkss (Parquet part files and"
                        + " _table.json) a Delta table in place, as CONVERT TO DELTA: one commit"
                        + " that adds its part files; no data is rewritten.")
    static final class Convert extends OnTable {
        @Override
        void run(PrintStream out) {
            data.refuseJdbcUrl("table convert"); // Delta tables only
            if (data.objectStoreWarehouse()) {
                // A table of the earlier format is read as the local files it was written as;
                // refused before the object store is reached.
                throw new IllegalStateException(
                        "the warehouse "
                                + data.warehouse()
                                + " is on an object store, not a local folder: this needs a local"
                                + " --warehouse (docs/object-storage.md)");
            }
            Warehouse warehouse = data.openWarehouse();
            if (!warehouse.isLegacy(table)) {
                if (warehouse.exists(table)) {
                    out.println("table " + table + " is a Delta table already");
                    return;
                }
                throw new IllegalArgumentException(
                        "no table '" + table + "' in warehouse " + warehouse.where());
            }
            // The writer's checkpoint in this base, when there is one, becomes the table's owner.
            String writer =
                    LegacyTables.writer(
                            Storage.localFile(
                                    warehouse.tableLocation(table),
                                    "a table of the earlier format"));
            TableOwner owner = null;
            if (writer.matches("[A-Za-z0-9_-]+")) {
                QueryCheckpoint checkpoint = QueryCheckpoint.of(data.base(), writer);
                if (checkpoint.exists()) {
                    owner = checkpoint.owner(checkpoint.queryId(), warehouse);
                }
            }
            DeltaTable delta = warehouse.convert(table, owner);
            DeltaSnapshot snapshot = delta.snapshot();
            out.println(
                    "table "
                            + table
                            + " converted to Delta in place: version "
                            + snapshot.version()
                            + ", "
                            + snapshot.files().size()
                            + " data file(s), "
                            + snapshot.count()
                            + " rows; writer '"
                            + writer
                            + "'"
                            + (owner == null ? "" : " (checkpoint " + owner.checkpoint() + ")"));
        }
    }
}
