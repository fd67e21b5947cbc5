package org.flinkss.course.queries;

/**
 * An option of the command line that only some queries take; each entry of the {@link QueryCatalog}
 * lists the ones it takes, and any other is refused before anything runs.
 */
public enum QueryOption {
    RESCUED_DATA("--rescued-data", false, "the queries that parse landing files"),
    SKIP_MISSING_FILES("--skip-missing-files", false, "the queries that read landing files"),
    BAD_LINES("--bad-lines", false, "the queries that parse JSON events"),
    SCHEMA_EVOLUTION("--schema-evolution", false, "the query that lands files in events_bronze"),
    KAFKA_SOURCE(
            "--subscribe, --subscribe-pattern, --assign, --starting-offsets,"
                    + " --max-offsets-per-trigger and --fail-on-data-loss",
            true,
            "the query that reads a topic"),
    KAFKA_TOPIC("--topic", false, "the query that writes to a topic"),
    KAFKA_CLIENT(
            "--bootstrap-servers and --kafka-properties", true, "the queries that talk to Kafka");

    private final String flags;
    private final boolean plural;
    private final String takenBy;

    QueryOption(String flags, boolean plural, String takenBy) {
        this.flags = flags;
        this.plural = plural;
        this.takenBy = takenBy;
    }

    /** How the command line spells it. */
    public String flags() {
        return flags;
    }

    /** Why {@code query} refuses it, naming the queries that take it. */
    String refusal(QueryCatalog query) {
        StringBuilder takers = new StringBuilder();
        for (QueryCatalog q : QueryCatalog.values()) {
            if (q.options().contains(this)) {
                takers.append(takers.length() == 0 ? "" : ", ").append(q.queryName());
            }
        }
        return flags
                + (plural ? " are options of " : " is an option of ")
                + takenBy
                + " ("
                + takers
                + "), not of '"
                + query.queryName()
                + "'"
                + hint(query);
    }

    private String hint(QueryCatalog query) {
        if (query == QueryCatalog.KAFKA_BRONZE && this == RESCUED_DATA) {
            return ": " + query + " lands the raw records, with no schema to rescue from";
        }
        if (query == QueryCatalog.KAFKA_BRONZE && this == KAFKA_TOPIC) {
            return ": to read a topic, use --subscribe T";
        }
        return "";
    }
}
