package org.flinkss.jobs;

import picocli.AutoComplete;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The command line's completion script for bash and zsh, written by the build to {@code
 * jobs/target/flinkss_completion} (picocli's {@link AutoComplete}, over the whole command tree:
 * commands, subcommands, options, query names). {@code source jobs/target/flinkss_completion} in a
 * shell completes {@code flinkss}, {@code scripts/flinkss} and any {@code flinkss} on the {@code
 * PATH}.
 */
public final class ShellCompletion {

    /** The command the script completes (and, by bash's rule, any path that ends with it). */
    static final String COMMAND = "flinkss";

    private ShellCompletion() {}

    /** The completion script. */
    static String script() {
        return AutoComplete.bash(COMMAND, Main.commandLine());
    }

    /** Writes the script to the file named by the only argument. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: ShellCompletion <output file>");
        }
        Path file = Path.of(args[0]);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, script(), StandardCharsets.UTF_8);
    }
}
