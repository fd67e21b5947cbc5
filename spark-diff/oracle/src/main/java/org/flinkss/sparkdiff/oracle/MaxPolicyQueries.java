package org.flinkss.sparkdiff.oracle;

import org.apache.spark.sql.SparkSession;

/**
 * The view-then-buy joins again under {@code spark.sql.streaming.multipleWatermarkPolicy=max}
 * (issue 35 point 2): queries named {@code <query>-max}, each with its own checkpoint and table
 * ({@code view_then_buy_max}, {@code view_then_buy_left_max}), beside the same joins under Spark's
 * default min.
 *
 * <p>They are planned on a session of their own ({@code newSession()}: the same Spark context, its
 * own SQL conf, with the policy set to max), so that the queries running beside them keep the
 * default. Spark reads the policy from the session when a query first starts and records it in the
 * offset log's {@code conf}; later starts take the checkpoint's.
 */
final class MaxPolicyQueries {

    static final String CONF = "spark.sql.streaming.multipleWatermarkPolicy";
    static final String SUFFIX = "-max";

    private MaxPolicyQueries() {}

    static boolean isMax(String query) {
        return query.endsWith(SUFFIX);
    }

    /** The query the max one runs under the other policy: {@code view-then-buy}. */
    static String underMin(String query) {
        return query.substring(0, query.length() - SUFFIX.length());
    }

    /** A session beside {@code spark} whose queries choose the max watermark. */
    static SparkSession session(SparkSession spark) {
        SparkSession max = spark.newSession();
        max.conf().set(CONF, "max");
        return max;
    }
}
