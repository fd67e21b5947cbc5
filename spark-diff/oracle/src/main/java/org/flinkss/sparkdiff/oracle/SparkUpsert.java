package org.flinkss.sparkdiff.oracle;

import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Topic 11.13's {@code upsert} on Spark, as the course writes it: an empty {@code events_latest}
 * with bronze's event columns ({@code CREATE TABLE ... AS SELECT * FROM events_bronze WHERE 1 =
 * 0}), then {@code events_bronze} as a stream, each batch MERGEd into it by {@code foreachBatch}
 * ({@code MERGE INTO events_latest t USING batch s ON t.event_id = s.event_id WHEN MATCHED THEN
 * UPDATE SET * WHEN NOT MATCHED THEN INSERT *}), one {@code Trigger.AvailableNow} run. The tables
 * are folders ({@code delta.`<dir>`}): bronze is the project's own, read as Spark reads any Delta
 * table, one data file a batch ({@code maxFilesPerTrigger 1}) so that each of the project's bronze
 * versions (one file each at parallelism 1) is one of Spark's batches, as the project's {@code
 * latest} merged it; Spark's MERGE fails when two rows of one batch match one target row.
 */
final class SparkUpsert {

    private SparkUpsert() {}

    /** One availableNow run of the upsert; returns the batches it ran. */
    static String run(SparkSession spark, Path bronze, Path latest, Path checkpoint)
            throws Exception {
        String target = "delta.`" + latest + "`";
        if (!Files.isDirectory(latest.resolve("_delta_log"))) {
            // The course's CREATE TABLE ... AS SELECT * FROM events_bronze WHERE 1 = 0, on a
            // folder: the session catalog takes no path as a CTAS target.
            spark.read()
                    .format("delta")
                    .load(bronze.toString())
                    .select("event_id", "user_id", "event_type", "event_ts", "amount")
                    .where("1 = 0")
                    .write()
                    .format("delta")
                    .save(latest.toString());
        }
        VoidFunction2<Dataset<Row>, Long> upsert =
                (batch, batchId) -> {
                    if (batch.isEmpty()) {
                        return;
                    }
                    batch.createOrReplaceTempView("batch");
                    batch.sparkSession()
                            .sql(
                                    "MERGE INTO "
                                            + target
                                            + " t USING batch s ON t.event_id = s.event_id"
                                            + " WHEN MATCHED THEN UPDATE SET *"
                                            + " WHEN NOT MATCHED THEN INSERT *");
                };
        StreamingQuery query =
                spark.readStream()
                        .format("delta")
                        .option("maxFilesPerTrigger", "1")
                        .load(bronze.toString())
                        .select("event_id", "user_id", "event_type", "event_ts", "amount")
                        .writeStream()
                        .foreachBatch(upsert)
                        .option("checkpointLocation", checkpoint.toString())
                        .trigger(Trigger.AvailableNow())
                        .start();
        query.awaitTermination();
        return "upsert " + latest + " " + query.recentProgress().length + " batches";
    }
}
