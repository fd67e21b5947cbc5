package org.flinkss.jobs.cli.options;

import org.apache.flink.core.fs.Path;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.runtime.ops.QueryCheckpoint;

import java.util.Optional;

/**
 * The query whose checkpoint a command reads or resets ({@code progress}, {@code reset}): a name of
 * the {@link QueryCatalog} (with {@code --outer}, as {@link QueryArgument}), or the name of a query
 * run with {@code sql --file} that has a checkpoint under the base.
 */
public final class CheckpointedQuery {

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Parameters(
            index = "0",
            paramLabel = "QUERY",
            completionCandidates = QueryArgument.Names.class,
            description =
                    "the query: ${COMPLETION-CANDIDATES}, or the name of a query run with 'sql"
                            + " --file'")
    String name;

    @Option(names = "--outer", description = QueryArgument.OUTER)
    boolean outer;

    /** The catalog's query of that name, if it is one. */
    public Optional<QueryCatalog> catalog() {
        return QueryCatalog.find(name).map(q -> q.withOuter(outer));
    }

    /**
     * The name of the query's checkpoint under {@code base}: a catalog query's (one checkpoint:
     * {@code command} is refused for a composite one), or a SQL query's that has one; anything else
     * is refused as an unknown query.
     */
    public String checkpointName(Path base, String command) {
        Optional<QueryCatalog> known = catalog();
        if (known.isPresent()) {
            return known.get().single(command).queryName();
        }
        if (!outer && name.matches("[A-Za-z0-9][A-Za-z0-9_.-]*") && !name.contains("..")) {
            if (QueryCheckpoint.of(base, name).exists()) {
                return name;
            }
        }
        throw new ParameterException(
                spec.commandLine(),
                "unknown query '"
                        + name
                        + "': the queries are "
                        + String.join(", ", QueryCatalog.names())
                        + ", or a query run with 'sql --file' that has a checkpoint under "
                        + base);
    }
}
