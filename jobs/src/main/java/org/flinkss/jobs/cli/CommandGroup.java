package org.flinkss.jobs.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;

/**
 * What a command that only groups others ({@code flinkss} itself, {@code table}) does when none of
 * them is named: it has nothing to do, so it says so in one line, prints its usage on stderr and
 * exits 2 (picocli's code for a command line it cannot run), never 0.
 */
public final class CommandGroup {

    private CommandGroup() {}

    /** Refuses the command line that names no command of {@code group}; returns the exit code. */
    public static int noCommandNamed(CommandSpec group) {
        CommandLine cli = group.commandLine();
        PrintWriter err = cli.getErr();
        err.println(
                "error: '"
                        + group.qualifiedName()
                        + "' needs a command: "
                        + String.join(", ", cli.getSubcommands().keySet()));
        cli.usage(err);
        err.flush();
        return group.exitCodeOnInvalidInput();
    }
}
