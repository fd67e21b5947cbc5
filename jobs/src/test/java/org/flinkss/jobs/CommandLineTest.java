package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line refuses what it cannot mean, with one line on stderr and before anything runs or
 * is created: no Flink here, so every case must be refused to pass.
 */
class CommandLineTest {

    @TempDir Path dir;

    /** Exit code and stderr of one command line. */
    private record Outcome(int code, String err) {}

    private Outcome cli(String... args) {
        PrintStream original = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Main.execute(args);
        } finally {
            System.setErr(original);
        }
        return new Outcome(code, err.toString(StandardCharsets.UTF_8));
    }

    private Outcome refused(int code, String... args) {
        Path base = dir.resolve("base");
        String[] withBase = new String[args.length + 2];
        System.arraycopy(args, 0, withBase, 0, args.length);
        withBase[args.length] = "--base";
        withBase[args.length + 1] = base.toString();
        Outcome outcome = cli(withBase);
        assertThat(outcome.code).as("exit code; stderr: %s", outcome.err).isEqualTo(code);
        assertThat(outcome.err).startsWith("error: ");
        assertThat(outcome.err.lines()).as("one line: %s", outcome.err).hasSize(1);
        assertThat(Files.exists(base)).as("%s created", base).isFalse();
        return outcome;
    }

    @Test
    void rateLimitsOfZeroOrLessAreRefusedNotReadAsNoLimit() {
        assertThat(refused(2, "run", "bronze", "--max-files-per-trigger", "-1").err)
                .contains(
                        "Invalid value for option '--max-files-per-trigger': must be 1 or more, got"
                                + " '-1'; leave the option out for no limit");
        assertThat(refused(2, "run", "bronze", "--max-files-per-trigger", "0").err)
                .contains("got '0'; leave the option out for no limit");
        assertThat(refused(2, "run", "bronze", "--max-bytes-per-trigger", "0").err)
                .contains(
                        "Invalid value for option '--max-bytes-per-trigger': a size must be at"
                                + " least 1 byte, got '0'");
        assertThat(refused(2, "run", "bronze", "--max-bytes-per-trigger", "lots").err)
                .contains("cannot read 'lots' as a size");
        assertThat(refused(2, "run", "kafka-bronze", "--max-offsets-per-trigger", "0").err)
                .contains("'--max-offsets-per-trigger': must be 1 or more");
        assertThat(refused(2, "land-events", "--batch", "1", "--start", "0", "--n", "-5").err)
                .contains("Invalid value for option '--n': must be 1 or more, got '-5'");
    }

    @Test
    void valuesAreReadByTheirTypeWithTheChoicesInTheError() {
        assertThat(refused(2, "run", "win5", "--api", "sql").err)
                .contains(
                        "Invalid value for option '--api': unknown --api 'sql': use datastream or"
                                + " table");
        assertThat(refused(2, "run", "win5", "--output-mode", "upsert").err)
                .contains("unknown output mode 'upsert': use append, update or complete");
        assertThat(refused(2, "run", "win5", "--trigger", "hourly").err)
                .contains("unknown trigger 'hourly'");
        assertThat(refused(2, "run", "win5", "--trigger", "processing-time=0s").err)
                .contains("processing-time interval must be positive");
        assertThat(refused(2, "run", "win5", "--run-for", "0s").err)
                .contains("'--run-for': a duration must be positive, got '0s'");
        assertThat(refused(2, "run", "win5", "--checkpoint-interval", "often").err)
                .contains("cannot read 'often' as a duration");
        assertThat(refused(2, "run", "win5", "--parallelism", "0").err)
                .contains("'--parallelism': must be 1 or more, got '0'");
        assertThat(
                        refused(
                                        2,
                                        "recompute",
                                        "events_5min",
                                        "--from",
                                        "yesterday",
                                        "--to",
                                        "2025-03-01T01:00:00Z")
                                .err)
                .contains("'--from': cannot read 'yesterday' as a time");
    }

    @Test
    void aQueryNameIsANameOfTheCatalogNeverAPath() {
        for (String command : new String[] {"run", "reset", "progress", "bench"}) {
            assertThat(refused(2, command, "../../other/_cp/bronze").err)
                    .contains("unknown query '../../other/_cp/bronze': the queries are bronze,");
        }
    }

    @Test
    void theOuterJoinHasOneNameEverywhere() {
        // Both spellings name the same checkpoint, _cp/view-then-buy-outer.
        String expected = "error: query 'view-then-buy-outer' has no progress under ";
        assertThat(refused(1, "progress", "view-then-buy", "--outer").err).startsWith(expected);
        assertThat(refused(1, "progress", "view-then-buy-outer").err).startsWith(expected);
        assertThat(refused(1, "reset", "view-then-buy", "--outer").err)
                .startsWith("error: query 'view-then-buy-outer' has no checkpoint under ");
        assertThat(refused(1, "run", "win5", "--outer").err)
                .isEqualTo(
                        "error: --outer is an option of view-then-buy (its left outer join is the"
                                + " query view-then-buy-outer), not of 'win5'\n");
    }

    @Test
    void whatAQueryDoesNotTakeIsRefusedBeforeItRuns() {
        assertThat(refused(1, "run", "bronze", "--api", "table").err)
                .isEqualTo(
                        "error: query 'bronze' is written in the DataStream API only: use --api"
                                + " datastream\n");
        assertThat(refused(1, "run", "win5", "--rescued-data").err)
                .contains("--rescued-data is an option of the queries that parse landing files");
        assertThat(refused(1, "run", "view-then-buy", "--output-mode", "update").err)
                .contains("a join of two streams writes in append mode only");
        assertThat(refused(1, "run", "pipeline", "--trigger", "continuous").err)
                .contains("only takes the available-now trigger");
        assertThat(refused(1, "run", "win5", "--topic", "t").err)
                .contains("--topic is an option of the query that writes to a topic");
        assertThat(refused(1, "reset", "pipeline").err)
                .contains("'reset bronze', 'reset silver', 'reset gold'");
        assertThat(refused(1, "bench", "bronze", "--api", "table").err)
                .contains("DataStream API only");
    }

    @Test
    void aMisspeltOptionGetsOneLineAndTheSuggestion() {
        Outcome outcome = cli("run", "bronze", "--max-file-per-trigger", "2");
        assertThat(outcome.code).isEqualTo(2);
        assertThat(outcome.err)
                .startsWith("error: Unknown options: '--max-file-per-trigger', '2'")
                .contains("--max-files-per-trigger");
    }

    /**
     * A run builds only the command it names (picocli reads a command's options as it is added, a
     * third of a second of every start for all of them); without one, or with a misspelt one, the
     * usage and the refusal still know every command.
     */
    @Test
    void onlyTheNamedCommandIsBuiltAndEveryCommandOtherwise() {
        java.util.List<String> all =
                java.util.List.of(
                        "land-events",
                        "land-customers",
                        "run",
                        "sql",
                        "table",
                        "progress",
                        "status",
                        "state",
                        "recompute",
                        "reconcile",
                        "reset",
                        "demo",
                        "report",
                        "bench");
        assertThat(Main.commandLine("run", "bronze").getSubcommands().keySet())
                .containsExactly("run");
        assertThat(Main.commandLine("table", "count", "x").getSubcommands().get("table"))
                .as("a command keeps its own subcommands")
                .satisfies(t -> assertThat(t.getSubcommands()).containsKey("count"));
        assertThat(Main.commandLine().getSubcommands().keySet()).containsExactlyElementsOf(all);
        assertThat(Main.commandLine("--help").getSubcommands().keySet())
                .containsExactlyElementsOf(all);
        assertThat(Main.commandLine().getUsageMessage()).contains("land-events", "bench");

        Outcome misspelt = cli("rn");
        assertThat(misspelt.code).isEqualTo(2);
        assertThat(misspelt.err)
                .isEqualTo("error: Unmatched argument at index 0: 'rn' (see 'flinkss --help')\n");
    }
}
