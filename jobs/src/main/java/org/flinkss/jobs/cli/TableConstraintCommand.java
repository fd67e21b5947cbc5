package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import org.flinkss.jobs.cli.options.BaseFolder;
import org.flinkss.jobs.cli.options.DataOptions;
import org.flinkss.jobs.cli.output.Stdout;
import org.flinkss.runtime.expect.TableConstraints;
import org.flinkss.runtime.table.delta.DeltaConstraints;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code table constraint add|drop|not-null|list}: Delta's {@code CHECK} and {@code NOT NULL}
 * constraints, as Delta's SQL sets them ({@code ALTER TABLE t ADD CONSTRAINT name CHECK (expr)},
 * {@code DROP CONSTRAINT name}, {@code ALTER COLUMN c SET NOT NULL}), each one commit of the table.
 * Every query that writes the table checks its rows against them, and so does Spark.
 */
@Command(
        name = "constraint",
        mixinStandardHelpOptions = true,
        description =
                "Delta CHECK and NOT NULL constraints of a table: each change is one Delta commit;"
                        + " our writers and Spark refuse rows that break them.",
        subcommands = {
            TableConstraintCommand.Add.class,
            TableConstraintCommand.Drop.class,
            TableConstraintCommand.NotNull.class,
            TableConstraintCommand.ListAll.class
        })
final class TableConstraintCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        return CommandGroup.noCommandNamed(spec);
    }

    /** A subcommand on one existing Delta table of the warehouse. */
    abstract static class OnTable implements Callable<Integer> {
        @Mixin DataOptions data;

        @Parameters(index = "0", paramLabel = "TABLE")
        String table;

        @Override
        public final Integer call() {
            data.refuseJdbcUrl("table constraint"); // Delta tables only
            BaseFolder.refuseFile(data);
            DeltaTable delta = data.openWarehouse().existing(table);
            PrintStream out = Stdout.utf8();
            try {
                run(delta, out);
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new IllegalStateException("table " + table + ": " + e.getMessage(), e);
            }
            out.flush();
            return 0;
        }

        abstract void run(DeltaTable delta, PrintStream out);
    }

    @Command(
            name = "add",
            mixinStandardHelpOptions = true,
            description =
                    "ALTER TABLE TABLE ADD CONSTRAINT NAME CHECK (EXPR): refused if a row of the"
                            + " table breaks it (TRUE passes; FALSE and NULL break it) or if EXPR"
                            + " is not a condition over its columns.")
    static final class Add extends OnTable {
        @Parameters(index = "1", paramLabel = "NAME")
        String name;

        @Parameters(index = "2", paramLabel = "EXPR")
        String expression;

        @Override
        void run(DeltaTable delta, PrintStream out) {
            long version = TableConstraints.add(delta, table, name, expression);
            out.println(
                    "table "
                            + table
                            + ": constraint "
                            + name.toLowerCase(java.util.Locale.ROOT)
                            + " CHECK ("
                            + expression.strip()
                            + ") added as version "
                            + version);
        }
    }

    @Command(
            name = "drop",
            mixinStandardHelpOptions = true,
            description = "ALTER TABLE TABLE DROP CONSTRAINT NAME.")
    static final class Drop extends OnTable {
        @Parameters(index = "1", paramLabel = "NAME")
        String name;

        @Override
        void run(DeltaTable delta, PrintStream out) {
            long version = delta.constraints().drop(name);
            out.println(
                    "table "
                            + table
                            + ": constraint "
                            + name.toLowerCase(java.util.Locale.ROOT)
                            + " dropped as version "
                            + version);
        }
    }

    @Command(
            name = "not-null",
            mixinStandardHelpOptions = true,
            description =
                    "ALTER TABLE TABLE ALTER COLUMN COLUMN SET NOT NULL: refused if a row holds a"
                            + " null in it.")
    static final class NotNull extends OnTable {
        @Parameters(index = "1", paramLabel = "COLUMN")
        String column;

        @Override
        void run(DeltaTable delta, PrintStream out) {
            long version = TableConstraints.setNotNull(delta, table, column);
            out.println(
                    "table "
                            + table
                            + ": column "
                            + column
                            + " is NOT NULL as of version "
                            + version);
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "The table's constraints, one a line (as table show lists them).")
    static final class ListAll extends OnTable {
        @Override
        void run(DeltaTable delta, PrintStream out) {
            List<String> lines = lines(delta);
            if (lines.isEmpty()) {
                out.println("table " + table + " has no constraints");
            }
            lines.forEach(out::println);
        }
    }

    /** A table's constraints, one a line: {@code CHECK name (expr)}, {@code NOT NULL column}. */
    static List<String> lines(DeltaTable delta) {
        DeltaTable.Head head = delta.head().orElseThrow();
        List<String> lines = new ArrayList<>();
        DeltaConstraints.checks(head.properties())
                .forEach((name, expr) -> lines.add("constraint " + name + " CHECK (" + expr + ")"));
        for (String column : DeltaConstraints.notNullColumns(head.rowType())) {
            lines.add("constraint NOT NULL " + column);
        }
        return lines;
    }
}
