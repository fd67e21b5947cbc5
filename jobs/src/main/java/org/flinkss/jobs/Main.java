package org.flinkss.jobs;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

import org.flinkss.jobs.cli.BenchCommand;
import org.flinkss.jobs.cli.CommandGroup;
import org.flinkss.jobs.cli.DemoCommand;
import org.flinkss.jobs.cli.LandCustomersCommand;
import org.flinkss.jobs.cli.LandEventsCommand;
import org.flinkss.jobs.cli.ProgressCommand;
import org.flinkss.jobs.cli.RecomputeCommand;
import org.flinkss.jobs.cli.ReconcileCommand;
import org.flinkss.jobs.cli.ReportCommand;
import org.flinkss.jobs.cli.ResetCommand;
import org.flinkss.jobs.cli.RunCommand;
import org.flinkss.jobs.cli.SqlCommand;
import org.flinkss.jobs.cli.StateCommand;
import org.flinkss.jobs.cli.StatusCommand;
import org.flinkss.jobs.cli.TableCommand;
import org.flinkss.jobs.cli.VersionProvider;
import org.flinkss.jobs.cli.output.Logging;
import org.flinkss.jobs.cli.output.Stdout;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.TestPauses;
import org.flinkss.runtime.runner.EarlyInterruption;
import org.flinkss.runtime.runner.EmbeddedClusters;
import org.flinkss.runtime.storage.Storage;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The command line: {@code java -jar flinkss-jobs.jar <command>}, or the same arguments after
 * {@code flink run flinkss-jobs-cluster.jar}. Every command takes {@code --help} and {@code -V}.
 * Exit codes: 0 done, 1 refused or failed (one line {@code error: ...} on stderr), 2 a value or
 * option the command line cannot read (one line, and picocli's suggestions for a misspelt option),
 * or no command named (the usage, on stderr).
 */
@Command(
        name = "flinkss",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Spark Structured Streaming's course module, as Apache Flink jobs.")
public final class Main implements Callable<Integer> {

    /** The commands, in the order {@code --help} lists them. */
    private static final List<Class<?>> COMMANDS =
            List.of(
                    LandEventsCommand.class,
                    LandCustomersCommand.class,
                    RunCommand.class,
                    SqlCommand.class,
                    TableCommand.class,
                    ProgressCommand.class,
                    StatusCommand.class,
                    StateCommand.class,
                    RecomputeCommand.class,
                    ReconcileCommand.class,
                    ResetCommand.class,
                    DemoCommand.class,
                    ReportCommand.class,
                    BenchCommand.class);

    @Spec CommandSpec spec;

    /** No command named: nothing to do, which is not a success. */
    @Override
    public Integer call() {
        return CommandGroup.noCommandNamed(spec);
    }

    /**
     * The command line for these arguments. When the first one names a command, only that command
     * is built: picocli reads each command's options by reflection as it is added, and reading all
     * ten cost every run about 0.3 s of its start (450 ms against 150 ms for {@code run} alone, in
     * a fresh JVM with the class-data archive). Otherwise (no command, {@code --help}, {@code
     * --version}, a misspelt name) all of them, so that the usage and picocli's suggestions name
     * every command.
     */
    static CommandLine commandLine(String... args) {
        CommandLine cli = new CommandLine(new Main());
        Optional<Class<?>> named =
                args.length == 0
                        ? Optional.empty()
                        : COMMANDS.stream().filter(c -> isNamed(c, args[0])).findFirst();
        for (Class<?> command : named.map(List::<Class<?>>of).orElse(COMMANDS)) {
            try {
                cli.addSubcommand(CommandLine.defaultFactory().create(command));
            } catch (Exception e) {
                throw new IllegalStateException("cannot create the command " + command, e);
            }
        }
        // -V on any command prints what --version prints (without a provider of their own,
        // picocli printed an empty line for a subcommand's -V and exited 0).
        withVersionProvider(cli);
        return cli;
    }

    private static void withVersionProvider(CommandLine command) {
        CommandSpec spec = command.getCommandSpec();
        if (spec.versionProvider() == null && spec.version().length == 0) {
            spec.versionProvider(new VersionProvider());
        }
        command.getSubcommands().values().forEach(Main::withVersionProvider);
    }

    private static boolean isNamed(Class<?> command, String name) {
        Command spec = command.getAnnotation(Command.class);
        return spec.name().equals(name) || Arrays.asList(spec.aliases()).contains(name);
    }

    public static void main(String[] args) {
        try {
            Logging.configure(System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.exit(2);
        }
        // Ctrl-C from here until a run's job is watched says what it interrupted.
        EarlyInterruption.install(args.length == 0 ? "" : args[0], System.err);
        TestPauses.at("command-start");
        boolean underFlinkRun = FlinkRunClient.isUnderFlinkRun();
        if (underFlinkRun) {
            FlinkRunClient.startHadoopShutdownHooksOutsideUserCode();
            // The Flink client loaded the cluster's file systems (its plugins/, its s3.* keys).
            Storage.initializedByFlink();
        }
        int code = execute(args);
        EarlyInterruption.uninstall();
        // Flink's embedded cluster leaves non-daemon threads behind: exit explicitly. Under
        // `flink run` the client owns the JVM and only a failure must end it with a code.
        if (code != 0 || !underFlinkRun) {
            awaitEmbeddedClusters(code == 0);
            System.out.flush();
            System.exit(code);
        }
    }

    /** How long an exit waits for the embedded clusters to shut down after a command succeeded. */
    static final Duration SHUTDOWN_AFTER_SUCCESS = Duration.ofSeconds(30);

    /**
     * And after it failed, when a job may still be running (its cluster then stops at the exit).
     */
    static final Duration SHUTDOWN_AFTER_FAILURE = Duration.ofSeconds(5);

    /**
     * Waits until the embedded clusters, which Flink shuts down in the background when their jobs
     * end, have shut down: an exit during that shutdown makes Pekko's JVM shutdown hook load its
     * classes from a class loader the shutdown closes meanwhile, and print a {@code
     * NoClassDefFoundError} after a run that succeeded ({@link EmbeddedClusters}). After a failure
     * the wait is shorter and silent: the error has been said, in one line.
     */
    private static void awaitEmbeddedClusters(boolean succeeded) {
        Duration timeout = succeeded ? SHUTDOWN_AFTER_SUCCESS : SHUTDOWN_AFTER_FAILURE;
        try {
            if (!EmbeddedClusters.awaitShutdown(timeout) && succeeded) {
                System.err.println(
                        "warning: Flink's embedded cluster did not shut down within "
                                + timeout.toSeconds()
                                + " s; exiting anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs one command line and returns its exit code. */
    public static int execute(String... args) {
        CommandLine cli = commandLine(args);
        // Errors name files and tables: UTF-8, whatever the platform's charset.
        cli.setErr(Stdout.utf8Err());
        cli.setParameterExceptionHandler(Main::invalidInput);
        cli.setExecutionStrategy(
                parseResult -> {
                    // A command that runs queries writes nothing before its run starts (which
                    // says what Ctrl-C interrupts from then on); any other works from here.
                    if (!runsQueries(parseResult)) {
                        EarlyInterruption.silence();
                    }
                    return new CommandLine.RunLast().execute(parseResult);
                });
        cli.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    Optional<String> storage = Storage.explainFailure(null, e);
                    Optional<String> diskFull =
                            new DiskFull(DiskFull::usableSpace)
                                    .explain(e, DiskFull.folders(parseResult));
                    if (diskFull.isPresent()) {
                        commandLine.getErr().println("error: " + diskFull.get());
                    } else if (e instanceof QueryException
                            || e instanceof IllegalArgumentException
                            || e instanceof IllegalStateException) {
                        commandLine.getErr().println("error: " + e.getMessage());
                    } else if (storage.isPresent()) {
                        // The endpoint, bucket or credentials are wrong: what to fix, in one line.
                        commandLine.getErr().println("error: " + storage.get());
                    } else {
                        commandLine.getErr().println("error: " + e);
                        e.printStackTrace(commandLine.getErr());
                    }
                    return 1;
                });
        return cli.execute(args);
    }

    private static boolean runsQueries(CommandLine.ParseResult parseResult) {
        return parseResult.hasSubcommand()
                && RUN_COMMANDS.contains(parseResult.subcommand().commandSpec().name());
    }

    /** The commands whose work is query runs, and nothing written before the first starts. */
    private static final Set<String> RUN_COMMANDS = Set.of("run", "sql");

    /** A value or an option that cannot be read: one line, not the whole usage. */
    private static int invalidInput(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        boolean usage =
                e instanceof MissingParameterException || e instanceof UnmatchedArgumentException;
        // A query name that is not in the catalog says so itself; an option's value names the
        // option ("Invalid value for option '--n': ...").
        boolean positional =
                e.getCause() instanceof TypeConversionException
                        && e.getArgSpec() != null
                        && !e.getArgSpec().isOption();
        err.println(
                "error: "
                        + (positional ? e.getCause().getMessage() : e.getMessage())
                        + (usage
                                ? " (see '" + command.getCommandSpec().qualifiedName() + " --help')"
                                : ""));
        UnmatchedArgumentException.printSuggestions(e, err);
        return command.getCommandSpec().exitCodeOnInvalidInput();
    }
}
