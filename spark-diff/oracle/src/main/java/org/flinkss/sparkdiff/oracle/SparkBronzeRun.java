package org.flinkss.sparkdiff.oracle;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;

/**
 * Module 11.03's bronze on Spark, as the course writes it, for {@code scripts/bench-spark}: the
 * landing folder read with the explicit schema and written to a table by one {@code
 * Trigger.AvailableNow} run, in a fresh checkpoint, in the oracle's local session ({@code
 * local[2]}, UTC) with Spark's defaults otherwise (Delta's statistics collected), so the run is
 * what a user of the course gets.
 *
 * <p>Usage: {@code SparkBronzeRun <landing folder> <output folder> delta|parquet}. Prints one line
 * on standard output, {@code spark <version> session <s> s, query <s> s, rows <n>}: the session's
 * start, the query from {@code start} to {@code awaitTermination}'s return, and the rows its
 * progress reports read. The output folder must not exist: the run never writes into a table it did
 * not start.
 */
public final class SparkBronzeRun {

    private SparkBronzeRun() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !(args[2].equals("delta") || args[2].equals("parquet"))) {
            System.err.println(
                    "usage: SparkBronzeRun <landing folder> <output folder> delta|parquet");
            System.exit(2);
        }
        long start = System.nanoTime();
        Path landing = Paths.get(args[0]);
        Path out = Paths.get(args[1]);
        String format = args[2];
        if (Files.exists(out)) {
            System.err.println(
                    "SparkBronzeRun: "
                            + out
                            + " exists; give a folder that does not (the run makes it)");
            System.exit(2);
        }
        SparkSession spark = LocalSparkSessions.withDelta("bronze").getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        long session = System.nanoTime();
        StreamingQuery query =
                SparkOracle.bronze(spark, landing)
                        .writeStream()
                        .format(format)
                        .outputMode("append")
                        .option("checkpointLocation", out.resolve("_checkpoint").toString())
                        .trigger(Trigger.AvailableNow())
                        .start(out.resolve("events_bronze").toString());
        query.awaitTermination();
        long done = System.nanoTime();
        // One batch without maxFilesPerTrigger; recentProgress keeps the last 100.
        long rows = 0;
        for (StreamingQueryProgress progress : query.recentProgress()) {
            rows += progress.numInputRows();
        }
        System.out.println(
                String.format(
                        Locale.ROOT,
                        "spark %s session %.2f s, query %.2f s, rows %d",
                        spark.version(),
                        (session - start) / 1e9,
                        (done - session) / 1e9,
                        rows));
        spark.stop();
    }
}
