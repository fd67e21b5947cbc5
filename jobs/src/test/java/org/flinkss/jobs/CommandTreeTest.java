package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every command and subcommand of the whole command tree takes {@code --help} and {@code -h} (exit
 * 0, its usage on stdout, nothing on stderr) and {@code -V}; a command that only groups others
 * exits 2 with its usage on stderr when none of them is named. The tree is walked, not listed, so
 * that a command added later is checked too. No Flink runs: only help and versions.
 */
class CommandTreeTest {

    private static CliOutput cli(List<String> args) {
        return CliOutput.of(args.toArray(String[]::new));
    }

    /** Every command of the tree as the words that name it, {@code []} for flinkss itself. */
    private static List<List<String>> commandPaths() {
        List<List<String>> paths = new ArrayList<>();
        walk(Main.commandLine(), new ArrayList<>(), paths, new IdentityHashMap<>());
        return paths;
    }

    private static void walk(
            CommandLine command,
            List<String> path,
            List<List<String>> paths,
            Map<CommandSpec, Boolean> seen) {
        if (seen.put(command.getCommandSpec(), true) != null) {
            return; // an alias of a command already walked
        }
        paths.add(List.copyOf(path));
        for (CommandLine sub : command.getSubcommands().values()) {
            List<String> subPath = new ArrayList<>(path);
            subPath.add(sub.getCommandName());
            walk(sub, subPath, paths, seen);
        }
    }

    private static List<String> with(List<String> path, String... more) {
        List<String> args = new ArrayList<>(path);
        args.addAll(List.of(more));
        return args;
    }

    @Test
    void theWalkFindsEveryCommandAndTheTableSubcommands() {
        List<List<String>> paths = commandPaths();
        assertThat(paths)
                .contains(
                        List.of(),
                        List.of("run"),
                        List.of("report"),
                        List.of("table"),
                        List.of("table", "show"),
                        List.of("table", "export"),
                        List.of("table", "convert"));
        assertThat(paths).hasSizeGreaterThanOrEqualTo(1 + 10 + 6);
    }

    @Test
    void everyCommandPrintsItsUsageForHelpAndExitsZero() {
        List<String> checked = new ArrayList<>();
        for (List<String> path : commandPaths()) {
            String name = String.join(" ", with(List.of("flinkss"), path.toArray(String[]::new)));
            for (String help : new String[] {"--help", "-h"}) {
                CliOutput outcome = cli(with(path, help));
                assertThat(outcome.code())
                        .as("'%s %s' exit code; stderr: %s", name, help, outcome.err())
                        .isZero();
                assertThat(outcome.err()).as("'%s %s' stderr", name, help).isEmpty();
                assertThat(outcome.out())
                        .as("'%s %s' stdout", name, help)
                        .startsWith("Usage: " + name)
                        .contains("-h, --help");
            }
            checked.add(name);
        }
        // table show and table export had lost their help to their own --version (time travel).
        assertThat(checked).contains("flinkss table show", "flinkss table export");
    }

    @Test
    void everyCommandPrintsTheVersionsForDashV() {
        for (List<String> path : commandPaths()) {
            CliOutput outcome = cli(with(path, "-V"));
            assertThat(outcome.code()).as("%s -V; stderr: %s", path, outcome.err()).isZero();
            assertThat(outcome.out())
                    .as("%s -V", path)
                    .startsWith("flink-structured-streaming ")
                    .contains("Apache Flink 2.", "Delta Kernel 4.", "Java 17");
        }
    }

    @Test
    void versionNamesTheProjectItsCommitFlinkDeltaKernelAndJava() {
        CliOutput outcome = cli(List.of("--version"));
        assertThat(outcome.code()).isZero();
        List<String> lines = outcome.out().lines().toList();
        assertThat(lines).hasSize(4);
        // The version of the pom; the commit as git names it (12 hex digits, ", modified" when
        // the build had uncommitted changes), or "unknown" for a build outside a git clone.
        assertThat(lines.get(0))
                .matches(
                        "flink-structured-streaming \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit"
                                + " ([0-9a-f]{12}(, modified)?|unknown)\\)");
        assertThat(lines.get(1)).matches("Apache Flink 2\\.\\d+\\.\\d+");
        assertThat(lines.get(2)).isEqualTo("Delta Kernel 4.0.0");
        assertThat(lines.get(3)).startsWith("Java " + Runtime.version() + " (");
    }

    @Test
    void noCommandIsRefusedWithTheUsageOnStderr() {
        CliOutput none = cli(List.of());
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.out()).isEmpty();
        assertThat(none.err())
                .startsWith("error: 'flinkss' needs a command: land-events, land-customers, run,")
                .contains("Usage: flinkss [-hV] [COMMAND]", "report");

        CliOutput table = cli(List.of("table"));
        assertThat(table.code()).isEqualTo(2);
        assertThat(table.out()).isEmpty();
        assertThat(table.err())
                .startsWith(
                        "error: 'flinkss table' needs a command: count, show, export, history,"
                                + " changes, vacuum, convert, repair, constraint\n")
                .contains("Usage: flinkss table [-hV] [COMMAND]");
    }

    @Test
    void aNegativeLimitOrVersionIsRefusedInOneLineNamingTheOption() {
        CliOutput limit = cli(List.of("table", "show", "events_bronze", "--limit", "-1"));
        assertThat(limit.code()).isEqualTo(2);
        assertThat(limit.err())
                .isEqualTo(
                        "error: Invalid value for option '--limit': must be 1 or more, got '-1'\n");

        CliOutput version = cli(List.of("table", "export", "events_bronze", "--version", "-1"));
        assertThat(version.code()).isEqualTo(2);
        assertThat(version.err())
                .isEqualTo(
                        "error: Invalid value for option '--version': a table's versions start at"
                                + " 0, got '-1' ('table history <name>' lists them)\n");
    }
}
