package org.flinkss.sparkdiff.oracle;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Delta's change data feed on Spark's side (issue 34, point 2): the course's topic 11.13 {@code
 * upsert} ({@code MERGE INTO events_latest}) run by Spark, batch by batch, over a bronze Delta
 * table into a table of its own with {@code delta.enableChangeDataFeed}, and a table's feed as
 * Spark's {@code readChangeFeed} reads it.
 */
final class ChangeFeedOracle {

    private final SparkSession spark;

    ChangeFeedOracle(SparkSession spark) {
        this.spark = spark;
    }

    /**
     * {@code upsert <bronze dir> <after version> <to version> <target dir>}: the course's {@code
     * upsert} of one micro-batch, the rows that versions {@code after + 1} to {@code to} of the
     * append-only bronze table added (the batch a stream over bronze reads when those versions are
     * new: the project's {@code run latest} read them as one). The target is created first, as the
     * course creates it ({@code AS SELECT * FROM events_bronze WHERE 1 = 0}), with the feed on. An
     * empty batch changes nothing, as the course's {@code if batch_df.isEmpty(): return}.
     */
    String upsert(Path bronze, long after, long to, Path target) {
        String into = "delta.`" + target + "`";
        if (!Files.isDirectory(target.resolve("_delta_log"))) {
            spark.sql(
                    "CREATE TABLE "
                            + into
                            + " USING delta TBLPROPERTIES (delta.enableChangeDataFeed = true)"
                            + " AS SELECT * FROM delta.`"
                            + bronze
                            + "` WHERE 1 = 0");
        }
        Dataset<Row> batch = version(bronze, to);
        if (after >= 0) {
            batch = batch.exceptAll(version(bronze, after));
        }
        if (batch.isEmpty()) {
            return "upsert: an empty batch";
        }
        batch.createOrReplaceTempView("batch");
        spark.sql(
                "MERGE INTO "
                        + into
                        + " t USING batch s ON t.event_id = s.event_id"
                        + " WHEN MATCHED THEN UPDATE SET *"
                        + " WHEN NOT MATCHED THEN INSERT *");
        return "upsert " + batch.count() + " rows into " + target;
    }

    private Dataset<Row> version(Path table, long version) {
        return spark.read().format("delta").option("versionAsOf", version).load(table.toString());
    }

    /**
     * {@code read-feed <table dir> <csv file>}: the table's change data feed from version 0 ({@code
     * readChangeFeed}, {@code startingVersion} 0), the table's columns and {@code _change_type},
     * then {@code _commit_version} as its rank among the versions that changed rows (1, 2, 3: two
     * writers' version numbers need not agree); {@code _commit_timestamp} left out.
     */
    Dataset<Row> feed(Path table) {
        Dataset<Row> feed =
                spark.read()
                        .format("delta")
                        .option("readChangeFeed", "true")
                        .option("startingVersion", 0)
                        .load(table.toString());
        feed.createOrReplaceTempView("feed");
        return spark.sql(
                        "SELECT *, dense_rank() OVER (ORDER BY _commit_version) AS _change_batch"
                                + " FROM feed")
                .drop("_commit_version", "_commit_timestamp");
    }
}
