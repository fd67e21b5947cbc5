package org.flinkss.jobs.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import org.flinkss.course.demo.DemoConsole;
import org.flinkss.course.demo.DemoScenario;
import org.flinkss.jobs.cli.options.Converters;
import org.flinkss.jobs.cli.options.ParallelismOption;
import org.flinkss.jobs.cli.output.RunSummary;
import org.flinkss.jobs.cli.output.TablePrinter;
import org.flinkss.jobs.cli.output.Tables;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.table.Warehouse;

import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code demo}: the course's walkthrough ({@link DemoScenario}) in a fresh folder, shown as the
 * command line shows runs and tables, then a summary of every cell compared with the course; exit
 * code 1 if one differs.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description =
                "Replay the course module topic by topic, comparing each result with the course's.")
public final class DemoCommand implements Callable<Integer> {

    @Option(
            names = "--topic",
            paramLabel = "11.NN",
            description = "run one topic (its earlier topics run quietly first)")
    String topic;

    @Option(
            names = "--base",
            paramLabel = "DIR",
            converter = Converters.LocalFolder.class,
            description = "where to work (default: a new folder data/demo-<time>)")
    Path base;

    @Mixin ParallelismOption parallelismOption;

    @Override
    public Integer call() {
        if (base == null) {
            base =
                    Paths.get(
                            "data",
                            "demo-"
                                    + LocalDateTime.now()
                                            .format(
                                                    DateTimeFormatter.ofPattern(
                                                            "yyyyMMdd-HHmmss")));
        }
        long started = System.nanoTime();
        List<DemoScenario.Check> results =
                new DemoScenario(base, parallelismOption.orElse(2), new Console(System.out))
                        .run(topic);
        long failed = results.stream().filter(r -> !r.matches()).count();
        System.out.println();
        System.out.println(
                "Summary (" + String.format("%.1f", (System.nanoTime() - started) / 1e9) + " s)");
        for (DemoScenario.Check r : results) {
            System.out.printf(
                    "  %-6s %-58s %s%n",
                    r.topic(), r.cell(), r.matches() ? "ok" : "DIFFERS: " + r.value());
        }
        System.out.println(
                "  "
                        + (results.size() - failed)
                        + " of "
                        + results.size()
                        + " results match the course.");
        return failed == 0 ? 0 : 1;
    }

    /** The demo shown as the command line shows runs ({@code run}) and tables ({@code table}). */
    private record Console(PrintStream out) implements DemoConsole {
        @Override
        public String runSummary(String query, QueryRunner.Result result) {
            return RunSummary.of(query, result);
        }

        @Override
        public String showTable(Warehouse warehouse, String table, int limit) {
            return TablePrinter.show(new Tables(warehouse, null), table, limit);
        }
    }
}
