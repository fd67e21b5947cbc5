package org.flinkss.runtime.query;

/**
 * Why a query cannot run with {@code --trigger real-time}, in one line naming the query and the
 * source or table, and what real-time runs: what it supports is said in one place.
 */
final class RealTimeRefusal {

    /** What a real-time run reads and writes, as every refusal says it. */
    static final String SUPPORTED =
            "--trigger real-time runs queries that read Kafka topics or the landing folder and"
                + " write Kafka topics or Delta tables (docs/real-time.md); run it with --trigger"
                + " available-now or processing-time=<interval>";

    private RealTimeRefusal() {}

    static String source(String query, String source) {
        return "query '" + query + "' reads " + source + ": " + SUPPORTED;
    }

    /** A JDBC table: its upserts are one transaction per micro-batch, not per checkpoint. */
    static String jdbcTable(String query, String table) {
        return "query '"
                + query
                + "' writes SQL table '"
                + table
                + "' through JDBC, which commits per micro-batch, not per real-time checkpoint: "
                + SUPPORTED;
    }
}
