package org.flinkss.jobs.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.output.Stdout;
import org.flinkss.jobs.cli.output.TablePrinter;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/** {@code table count|show|export <name>}: a table of the warehouse or of the SQL database. */
@Command(
        name = "table",
        mixinStandardHelpOptions = true,
        description = "Read a table of the warehouse.",
        subcommands = {
            TableCommand.Count.class,
            TableCommand.Show.class,
            TableCommand.Export.class
        })
public final class TableCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        new CommandLine(this).usage(System.out);
        return 0;
    }

    @Command(name = "count", mixinStandardHelpOptions = true, description = "Number of rows.")
    static final class Count implements Callable<Integer> {
        @Mixin DataOptions data;

        @Parameters(paramLabel = "TABLE")
        String table;

        @Override
        public Integer call() {
            BaseFolder.refuseFile(data.base);
            PrintStream out = Stdout.utf8();
            out.println(data.tables().count(table));
            out.flush();
            return 0;
        }
    }

    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = "The first rows as a grid, like the course's display().")
    static final class Show implements Callable<Integer> {
        @Mixin DataOptions data;

        @Parameters(paramLabel = "TABLE")
        String table;

        @Option(
                names = "--limit",
                defaultValue = "20",
                description = "rows to show (default: ${DEFAULT-VALUE})")
        int limit;

        @Override
        public Integer call() {
            BaseFolder.refuseFile(data.base);
            PrintStream out = Stdout.utf8();
            out.print(TablePrinter.show(data.tables(), table, limit));
            out.flush();
            return 0;
        }
    }

    @Command(
            name = "export",
            mixinStandardHelpOptions = true,
            description = "All rows, sorted by every column, with one header line.")
    static final class Export implements Callable<Integer> {
        @Mixin DataOptions data;

        @Parameters(paramLabel = "TABLE")
        String table;

        @Option(names = "--csv", required = true, description = "as CSV (the only format so far)")
        boolean csv;

        @Override
        public Integer call() {
            BaseFolder.refuseFile(data.base);
            PrintStream out = Stdout.utf8();
            TablePrinter.export(data.tables(), table, out);
            out.flush();
            return 0;
        }
    }
}
