package org.flinkss.course.queries;

import org.flinkss.runtime.query.OutputMode;

import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which of the catalog's queries write the SQL database (the one {@code --jdbc-url} names) when
 * given one: {@code latest}'s upserts and a windowed query's in update mode (without, both MERGE
 * into Delta); every other run writes only Delta tables (or a topic). A command that will not use
 * the database refuses the URL rather than ignore it (issue 38).
 */
public final class DatabaseWriters {

    /**
     * The windowed queries whose update mode upserts into the SQL database given with {@code
     * --jdbc-url} ({@link WindowQuery}).
     */
    private static final Set<QueryCatalog> IN_UPDATE_MODE =
            EnumSet.of(QueryCatalog.WIN5, QueryCatalog.SLIDING, QueryCatalog.GOLD);

    private DatabaseWriters() {}

    /** Whether a run of {@code query} in {@code mode} writes the SQL database. */
    public static boolean writes(QueryCatalog query, OutputMode mode) {
        return query == QueryCatalog.LATEST
                || (mode == OutputMode.UPDATE && IN_UPDATE_MODE.contains(query));
    }

    /** Whether some run of {@code query} writes the SQL database: its tables may be there. */
    public static boolean mayWrite(QueryCatalog query) {
        return writes(query, OutputMode.UPDATE);
    }

    /** The runs that write the SQL database, as a user types them. */
    public static String described() {
        return "run "
                + QueryCatalog.LATEST
                + ", and run "
                + IN_UPDATE_MODE.stream()
                        .map(QueryCatalog::queryName)
                        .collect(Collectors.joining(", "))
                + " with --output-mode update";
    }
}
