package org.flinkss.jobs;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

import org.flinkss.jobs.cli.BenchCommand;
import org.flinkss.jobs.cli.DemoCommand;
import org.flinkss.jobs.cli.LandCustomersCommand;
import org.flinkss.jobs.cli.LandEventsCommand;
import org.flinkss.jobs.cli.ProgressCommand;
import org.flinkss.jobs.cli.RecomputeCommand;
import org.flinkss.jobs.cli.ReportCommand;
import org.flinkss.jobs.cli.ResetCommand;
import org.flinkss.jobs.cli.RunCommand;
import org.flinkss.jobs.cli.SqlCommand;
import org.flinkss.jobs.cli.TableCommand;
import org.flinkss.jobs.cli.output.Stdout;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.storage.Storage;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The command line: {@code java -jar flinkss-jobs.jar <command>}, or the same arguments after
 * {@code flink run flinkss-jobs-cluster.jar}. Every command takes {@code --help}. Exit codes: 0
 * done, 1 refused or failed (one line {@code error: ...} on stderr), 2 a value or option the
 * command line cannot read (one line, and picocli's suggestions for a misspelt option).
 */
@Command(
        name = "flinkss",
        mixinStandardHelpOptions = true,
        version = "flink-structured-streaming 0.1.0",
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
                    RecomputeCommand.class,
                    ResetCommand.class,
                    DemoCommand.class,
                    ReportCommand.class,
                    BenchCommand.class);

    @Override
    public Integer call() {
        commandLine().usage(System.out);
        return 0;
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
        return cli;
    }

    private static boolean isNamed(Class<?> command, String name) {
        Command spec = command.getAnnotation(Command.class);
        return spec.name().equals(name) || Arrays.asList(spec.aliases()).contains(name);
    }

    public static void main(String[] args) {
        boolean underFlinkRun = FlinkRunClient.isUnderFlinkRun();
        if (underFlinkRun) {
            FlinkRunClient.startHadoopShutdownHooksOutsideUserCode();
            // The Flink client loaded the cluster's file systems (its plugins/, its s3.* keys).
            Storage.initializedByFlink();
        }
        int code = execute(args);
        // Flink's embedded cluster leaves non-daemon threads behind: exit explicitly. Under
        // `flink run` the client owns the JVM and only a failure must end it with a code.
        if (code != 0 || !underFlinkRun) {
            System.out.flush();
            System.exit(code);
        }
    }

    /** Runs one command line and returns its exit code. */
    public static int execute(String... args) {
        CommandLine cli = commandLine(args);
        // Errors name files and tables: UTF-8, whatever the platform's charset.
        cli.setErr(Stdout.utf8Err());
        cli.setParameterExceptionHandler(Main::invalidInput);
        cli.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    Optional<String> storage = Storage.explainFailure(null, e);
                    if (e instanceof QueryException
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
