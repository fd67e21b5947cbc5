package org.flinkss.sparkdiff;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Delta table's change data feed as a stream (issue 34, point 2's rest), the project's against
 * Spark's, on the Spark process of {@link WarehouseReadBackITCase}: a {@code sql --file} query that
 * reads {@code events_latest}'s feed ({@code 'read-change-feed' = 'true'}) into a table equals
 * Spark's {@code readStream} with {@code readChangeFeed}; and the feed of {@code run win5
 * --output-mode update} equals the feed of Spark's own win5 in update mode ({@code foreachBatch} +
 * {@code MERGE INTO} a table with the feed) on the same bronze batches.
 */
final class ChangeFeedStreamDiff {

    private ChangeFeedStreamDiff() {}

    /** The feed's rows and columns, as the SQL DDL declares them for {@code events_latest}. */
    private static final String FEED_COLUMNS =
            "(event_id BIGINT, user_id INT, event_type STRING, event_ts TIMESTAMP_LTZ(6),"
                    + " amount DOUBLE, _change_type STRING, _commit_version BIGINT)";

    /**
     * {@code sql --file} copies {@code events_latest}'s feed from version 0 into a table of its own
     * warehouse; Spark reads that table, and reads {@code events_latest}'s feed itself with {@code
     * readStream ... readChangeFeed, startingVersion 0}, availableNow: the same rows, {@code
     * _commit_version} included (the same table, so the same versions). A second run reads nothing
     * and commits nothing: the offset is the table version.
     */
    static void sqlFeedOfLatestEqualsSparksReadStream(
            SparkOracleProcess spark, Path work, Path latest) throws IOException {
        long start = System.nanoTime();
        Path base = work.resolve("feed-sql");
        Path sql = work.resolve("latest-feed.sql");
        Files.createDirectories(base);
        Files.writeString(
                sql,
                "CREATE TEMPORARY TABLE latest_changes "
                        + FEED_COLUMNS
                        + "\n  WITH ('connector' = 'delta', 'path' = '"
                        + latest.toUri()
                        + "',\n        'read-change-feed' = 'true', 'starting-version' = '0');\n"
                        + "CREATE TEMPORARY TABLE latest_feed "
                        + FEED_COLUMNS
                        + "\n  WITH ('connector' = 'delta', 'table' = 'latest_feed');\n"
                        + "INSERT INTO latest_feed SELECT * FROM latest_changes;\n",
                StandardCharsets.UTF_8);
        String[] args = {"sql", "--file", sql.toString(), "--base", base.toString(), "--quiet"};
        ProjectRunner.executeOrFail(args);
        Path copy = base.resolve("warehouse").resolve("latest_feed");
        long version = DeltaTable.forPath(copy.toUri().toString()).version();
        ProjectRunner.executeOrFail(args);
        assertThat(DeltaTable.forPath(copy.toUri().toString()).version())
                .as("latest_feed after a second run with no new version of events_latest")
                .isEqualTo(version);

        Path ours = work.resolve("feed-stream").resolve("ours.csv");
        Path sparks = work.resolve("feed-stream").resolve("spark.csv");
        spark.call("read-delta " + copy + " " + ours);
        spark.call("feed-stream " + latest + " " + sparks);
        List<String> ourRows = Files.readAllLines(ours, StandardCharsets.UTF_8);
        List<String> sparkRows = Files.readAllLines(sparks, StandardCharsets.UTF_8);
        assertThat(ourRows.get(0))
                .as("columns")
                .isEqualTo(sparkRows.get(0))
                .endsWith(",_change_type,_commit_version");
        assertThat(ourRows)
                .as(
                        "events_latest's feed read by sql --file ('read-change-feed') vs Spark's"
                                + " readStream with readChangeFeed, availableNow")
                .containsExactlyElementsOf(sparkRows);
        assertThat(ourRows).filteredOn(l -> l.contains(",update_postimage,")).isNotEmpty();
        say(
                (ourRows.size() - 1)
                        + " rows of events_latest's feed, read by sql --file as Spark's"
                        + " readStream reads them, in "
                        + SparkDiffITCase.seconds(start));
    }

    /**
     * Three rounds landed into bronze, the second updating windows that the first left open, the
     * third with ten rows late for a window that closed two rounds before; after each round {@code
     * run bronze} and {@code run win5 --output-mode update} (parallelism 1: one bronze version a
     * round, one win5 batch). Spark runs the course's win5 in update mode over the same bronze, one
     * bronze file a batch, each batch MERGEd into a table with the feed. Both feeds, read by
     * Spark's {@code readChangeFeed}, are the same rows with the same {@code _change_type}, batch
     * by batch: {@code _commit_version} is compared as its rank among the versions that changed
     * rows (version 0 creates each table; a batch that changed no window commits no feed row).
     */
    static void win5UpdateModeFeedEqualsSparksOwn(SparkOracleProcess spark, Path work)
            throws IOException {
        long start = System.nanoTime();
        Path base = work.resolve("win5-update");
        Path events = base.resolve("events");
        long[][] rounds = {{0, 200}, {140, 200}, {330, 100}};
        for (int round = 1; round <= 3; round++) {
            List<Event> rows =
                    new ArrayList<>(
                            EventGenerator.events(
                                    rounds[round - 1][0], (int) rounds[round - 1][1]));
            if (round == 3) {
                // Ten rows of the first window, long closed: dropped by both.
                rows.addAll(EventGenerator.events(0, 10));
            }
            EventFiles.writeBatch(Storage.location(events.toFile()), round, rows);
            ProjectRunner.executeOrFail(
                    "run", "bronze", "--base", base.toString(), "--parallelism", "1", "--quiet");
            ProjectRunner.executeOrFail(
                    "run",
                    "win5",
                    "--output-mode",
                    "update",
                    "--base",
                    base.toString(),
                    "--parallelism",
                    "1",
                    "--quiet");
        }
        Path warehouse = base.resolve("warehouse");
        assertThat(ProjectRunner.export(base, "events_5min_late"))
                .as("round 3's late rows in events_5min_late")
                .hasSize(1 + 10);

        Path sparkTable = work.resolve("spark-win5-update");
        say(
                spark.call(
                        "win5-update "
                                + warehouse.resolve("events_bronze")
                                + " "
                                + sparkTable
                                + " "
                                + work.resolve("spark-win5-update-cp")));
        Path ours = work.resolve("win5-feed").resolve("events_5min.csv");
        Path sparks = work.resolve("win5-feed").resolve("spark_events_5min.csv");
        spark.call("read-feed " + warehouse.resolve("events_5min") + " " + ours);
        spark.call("read-feed " + sparkTable + " " + sparks);
        List<String> ourFeed = Files.readAllLines(ours, StandardCharsets.UTF_8);
        List<String> sparkFeed = Files.readAllLines(sparks, StandardCharsets.UTF_8);
        assertThat(ourFeed.get(0)).as("columns of the feeds").isEqualTo(sparkFeed.get(0));
        assertThat(ourFeed)
                .as(
                        "the feed of run win5 --output-mode update vs Spark's win5 in update mode"
                                + " MERGEd by foreachBatch, both read by readChangeFeed")
                .containsExactlyElementsOf(sparkFeed);
        assertThat(ourFeed).filteredOn(l -> l.contains(",update_preimage,")).isNotEmpty();
        assertThat(ourFeed).filteredOn(l -> l.endsWith(",3")).as("round 3's changes").isNotEmpty();
        say(
                (ourFeed.size() - 1)
                        + " rows of update-mode win5's feed, the same as Spark's own, in "
                        + SparkDiffITCase.seconds(start));
    }

    private static void say(String line) {
        ProjectRunner.CONSOLE.println("[change-feed-stream] " + line);
    }
}
