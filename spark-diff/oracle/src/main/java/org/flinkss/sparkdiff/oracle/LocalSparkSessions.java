package org.flinkss.sparkdiff.oracle;

import org.apache.spark.sql.SparkSession;

/**
 * The local Spark session both the oracle and {@code SparkBronzeRun} start: {@code local[2]} (the
 * project's two cores), the session time zone UTC (the course's), no UI, bound to the loopback
 * address, and Delta Lake's SQL extension and catalog. Callers add their own settings.
 */
final class LocalSparkSessions {

    private LocalSparkSessions() {}

    static SparkSession.Builder withDelta(String appName) {
        return SparkSession.builder()
                .master("local[2]")
                .appName(appName)
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                .config(
                        "spark.sql.catalog.spark_catalog",
                        "org.apache.spark.sql.delta.catalog.DeltaCatalog");
    }
}
