package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

/**
 * {@code -h, --help} and {@code -V} for a command whose own {@code --version} option means
 * something else ({@code table show|export --version N}: Delta time travel). picocli's standard
 * help options would claim {@code --version} too, and with both there the command lost its help
 * ({@code table show --help} exited 2: "Missing required parameter").
 */
public final class HelpOptions {

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help message and exit.")
    boolean help;

    @Option(names = "-V", versionHelp = true, description = "Print version information and exit.")
    boolean version;
}
