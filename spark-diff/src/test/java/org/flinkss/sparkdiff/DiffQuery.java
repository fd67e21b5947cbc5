package org.flinkss.sparkdiff;

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
    GOLD("gold", "events_by_type", "gold");

    /** The name in reports and in the expected differences (the oracle's name). */
    final String id;

    final String table;
    private final List<String> runArgs;

    DiffQuery(String id, String table, String... runArgs) {
        this.id = id;
        this.table = table;
        this.runArgs = List.of(runArgs);
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
