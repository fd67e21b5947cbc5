package org.flinkss.sparkdiff;

import javax.annotation.Nullable;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;

/**
 * The queries compared, in the order a round runs them (bronze first, gold after silver): the
 * project's {@code run} arguments, the oracle's name for the query, and the table both write.
 */
enum DiffQuery {
    BRONZE("bronze", "events_bronze", "bronze"),
    WIN5("win5", "events_5min", "win5"),
    SLIDING("sliding", "events_sliding", "sliding"),
    SESSIONS("sessions", "events_sessions", "sessions"),
    DEDUP("dedup", "events_dedup", "dedup"),
    VIEW_THEN_BUY("view-then-buy", "view_then_buy", "view-then-buy"),
    VIEW_THEN_BUY_OUTER("view-then-buy-outer", "view_then_buy_left", "view-then-buy", "--outer"),
    SILVER("silver", "events_silver", "silver"),
    GOLD("gold", "events_by_type", "gold"),
    /** Issue 31: a query the course does not have, as a SQL file run by {@code sql --file}. */
    USER_HOP("user-hop", "user_hop_amounts", "examples/sql/user-hop.sql", true);

    /** The name in reports and in the expected differences (the oracle's name). */
    final String id;

    final String table;
    private final List<String> runArgs;

    /** The SQL file of a query run by {@code sql --file}, in the project's folder; or null. */
    @Nullable final String sqlFile;

    DiffQuery(String id, String table, String... runArgs) {
        this.id = id;
        this.table = table;
        this.runArgs = List.of(runArgs);
        this.sqlFile = null;
    }

    DiffQuery(String id, String table, String sqlFile, boolean sql) {
        this.id = id;
        this.table = table;
        this.runArgs = List.of();
        this.sqlFile = sqlFile;
    }

    /** The SQL file, for a query run by {@code sql --file}. */
    Path sqlPath() {
        // The tests run in the module's folder, spark-diff/.
        return Paths.get("").toAbsolutePath().getParent().resolve(sqlFile);
    }

    /**
     * The queries a round runs: {@code -Ddiff.queries=bronze,user-hop} for some (bronze, which the
     * others read, is always run first); all by default.
     */
    static List<DiffQuery> selected() {
        String only = System.getProperty("diff.queries");
        if (only == null || only.isBlank()) {
            return List.of(values());
        }
        List<String> ids = Arrays.stream(only.split(",")).map(String::trim).toList();
        return Arrays.stream(values()).filter(q -> q == BRONZE || ids.contains(q.id)).toList();
    }

    List<String> runArgs() {
        return runArgs;
    }

    static DiffQuery byId(String id) {
        for (DiffQuery q : values()) {
            if (q.id.equals(id)) {
                return q;
            }
        }
        throw new IllegalArgumentException("no query '" + id + "'");
    }
}
