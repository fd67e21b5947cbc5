package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import org.flinkss.course.queries.QueryCatalog;

import java.util.Iterator;

/**
 * The query a command is about: a name of the {@link QueryCatalog}, and {@code --outer} for the
 * left outer join of view-then-buy, which is the query {@code view-then-buy-outer} (its own
 * checkpoint and table): {@code run}, {@code progress} and {@code reset} take either spelling.
 */
public final class QueryArgument {

    @Parameters(
            index = "0",
            paramLabel = "QUERY",
            converter = Converters.QueryName.class,
            completionCandidates = Names.class,
            description = "the query: ${COMPLETION-CANDIDATES}")
    QueryCatalog query;

    /** What {@code --outer} means, for every command that takes it. */
    static final String OUTER =
            "view-then-buy: the left outer join, into view_then_buy_left (the query"
                    + " view-then-buy-outer)";

    @Option(names = "--outer", description = OUTER)
    boolean outer;

    /** The query named, with {@code --outer} applied; refused if it has no outer join. */
    public QueryCatalog query() {
        return query.withOuter(outer);
    }

    /** The catalog's names, for picocli's help. */
    public static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return QueryCatalog.names().iterator();
        }
    }
}
