package org.flinkss.jobs.cli.options;

import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.runtime.query.QueryJar;
import org.flinkss.runtime.query.QueryJarException;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@code run} runs: a query of the {@link QueryCatalog} (with {@code --outer}, as {@link
 * QueryArgument}), or the user's own query, a class of their jar ({@code --jar JAR --class CLASS}).
 * Exactly one of the two.
 */
public final class RunTarget {

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "QUERY",
            converter = Converters.QueryName.class,
            completionCandidates = QueryArgument.Names.class,
            description = "the query: ${COMPLETION-CANDIDATES} (or --jar and --class)")
    QueryCatalog query;

    @Option(names = "--outer", description = QueryArgument.OUTER)
    boolean outer;

    @Option(
            names = "--jar",
            paramLabel = "JAR",
            description =
                    "your own query: the jar that holds its class (built against the runtime,"
                            + " docs/java-api.md); with --class, instead of QUERY")
    Path jar;

    @Option(
            names = "--class",
            paramLabel = "CLASS",
            description =
                    "your own query: the class in --jar that implements"
                            + " org.flinkss.runtime.query.Query, with a public no-argument"
                            + " constructor; its checkpoint is <base>/_cp/<its name()>")
    String className;

    /** Whether the user's own query is to run ({@code --jar} and {@code --class}). */
    public boolean isJar() {
        check();
        return jar != null;
    }

    /** The catalog's query named, with {@code --outer} applied. */
    public QueryCatalog query() {
        check();
        return query.withOuter(outer);
    }

    /**
     * The user's query, loaded from its jar; refused as invalid input (exit 2), naming the jar and
     * the class, when it cannot run.
     */
    public QueryJar queryJar() {
        check();
        try {
            return QueryJar.open(jar, className);
        } catch (QueryJarException e) {
            throw refused(e);
        }
    }

    /** A jar or class that cannot run, as invalid input: one line, exit 2. */
    public ParameterException refused(QueryJarException e) {
        return new ParameterException(spec.commandLine(), e.getMessage(), e);
    }

    private void check() {
        if ((jar == null) != (className == null)) {
            throw invalid(
                    jar == null
                            ? "--class " + className + " needs --jar, the jar that holds it"
                            : "--jar " + jar + " needs --class, the query's class in it");
        }
        if (jar != null && query != null) {
            throw invalid(
                    "give either a query of the course ('"
                            + query.queryName()
                            + "') or your own with --jar and --class, not both");
        }
        if (jar != null) {
            refuseCourseOptions();
        }
        if (jar == null && query == null) {
            throw new MissingParameterException(
                    spec.commandLine(),
                    spec.positionalParameters().get(0),
                    "Missing required parameter: 'QUERY' (or --jar JAR --class CLASS, your own"
                            + " query)");
        }
    }

    /**
     * With {@code --jar}, an option that only the course's queries take is refused rather than
     * ignored: a user's query reads its own sources and chooses its own API and output.
     */
    private void refuseCourseOptions() {
        Set<String> courseOnly = new HashSet<>(COURSE_OPTIONS);
        CommandSpec kafka = spec.mixins().get(KAFKA_MIXIN);
        if (kafka != null) {
            kafka.options().forEach(o -> courseOnly.addAll(List.of(o.names())));
        }
        for (OptionSpec given : spec.commandLine().getParseResult().matchedOptions()) {
            if (courseOnly.contains(given.longestName())) {
                throw invalid(
                        given.longestName()
                                + " is an option of the course's queries and does not apply to"
                                + " --jar: your query reads its own sources and writes its own"
                                + " tables (docs/java-api.md)");
            }
        }
    }

    /** The options of {@code run} that only the course's queries take, beside Kafka's. */
    private static final List<String> COURSE_OPTIONS =
            List.of(
                    "--outer",
                    "--api",
                    "--output-mode",
                    "--rescued-data",
                    "--bad-lines",
                    "--schema-evolution");

    /** The field of {@code run}'s Kafka options: a course query's topic source. */
    private static final String KAFKA_MIXIN = "kafka";

    private ParameterException invalid(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
