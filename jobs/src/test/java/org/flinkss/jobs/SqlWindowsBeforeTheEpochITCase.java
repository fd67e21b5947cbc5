package org.flinkss.jobs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fresh {@code sql --file} query at parallelism 4 over rows on both sides of 1970-01-01: Spark's
 * watermark is the epoch from the first batch, so a sliding window that ends at or before it is
 * never emitted, even on a query's very first run. Flink's window operator takes the minimum
 * watermark of its inputs: were a batch's first rows to reach it before every source reader had
 * sent the epoch watermark, it would hold those windows and emit them when the epoch arrives (the
 * race of issue 31 that spark-diff's user-hop showed). The source holds the first batch until every
 * reader has sent it and a checkpoint holds it; the test runs several fresh queries, since a race
 * does not show on every run.
 */
class SqlWindowsBeforeTheEpochITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /** Fresh queries run: before the fix, the pre-epoch windows showed in all 6 of 6. */
    private static final int RUNS = 6;

    private static final Instant EPOCH = Instant.EPOCH;

    @TempDir Path tmp;

    /**
     * Eight files of 40 events, one every 30 s from 1969-12-31T23:40:00Z to 00:19:30Z, each file a
     * run of its own so that the four readers read in parallel.
     */
    private static List<List<Event>> files() {
        List<List<Event>> files = new ArrayList<>();
        long id = 0;
        for (int f = 0; f < 8; f++) {
            List<Event> events = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                Instant ts = EPOCH.minus(Duration.ofMinutes(20)).plusSeconds(30L * (f * 10 + i));
                events.add(new Event(id++, 1 + (int) (id % 3), "click", ts, 1.0));
            }
            files.add(events);
        }
        return files;
    }

    private static final String HOP_SQL =
            "CREATE TEMPORARY TABLE landing (event_id BIGINT, user_id INT, event_type STRING,\n"
                    + "  event_ts TIMESTAMP_LTZ(3), amount DOUBLE,\n"
                    + "  WATERMARK FOR event_ts AS event_ts - INTERVAL '10' MINUTE)\n"
                    + "  WITH ('connector' = 'landing-files', 'path' = '%s');\n"
                    + "CREATE TEMPORARY TABLE hops (window_start TIMESTAMP_LTZ(3),"
                    + " window_end TIMESTAMP_LTZ(3), events BIGINT)\n"
                    + "  WITH ('connector' = 'delta', 'table' = 'hops');\n"
                    + "INSERT INTO hops\n"
                    + "SELECT window_start, window_end, COUNT(*) AS events\n"
                    + "FROM TABLE(HOP(TABLE landing, DESCRIPTOR(event_ts), INTERVAL '5' MINUTE,"
                    + " INTERVAL '15' MINUTE))\n"
                    + "GROUP BY window_start, window_end;\n";

    @Test
    void aFreshQueryAtParallelism4NeverEmitsAWindowThatEndsAtOrBeforeTheEpoch() throws IOException {
        List<Event> all = files().stream().flatMap(List::stream).toList();
        // The batch's watermark is 00:19:30 - 10 min: the window that ends after the epoch and by
        // 00:09:30 is emitted, with all of its rows; those that end by the epoch never are.
        List<List<Object>> expected = new ArrayList<>();
        for (Instant end : List.of(EPOCH.plusSeconds(300))) {
            Instant start = end.minus(Duration.ofMinutes(15));
            long n =
                    all.stream()
                            .filter(e -> !e.eventTs.isBefore(start) && e.eventTs.isBefore(end))
                            .count();
            expected.add(List.of(start, end, n));
        }

        List<Integer> failed = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (int run = 0; run < RUNS; run++) {
            // Step 1: a fresh base, its events landed as eight files of one batch.
            Path base = tmp.resolve("run-" + run);
            Path events = base.resolve("events");
            List<List<Event>> files = files();
            for (int f = 0; f < files.size(); f++) {
                LocalEventFiles.writeBatch(events, f + 1, files.get(f));
            }
            Path file = tmp.resolve("hops-" + run + ".sql");
            Files.writeString(file, String.format(HOP_SQL, events), StandardCharsets.UTF_8);

            // Step 2: the query's first run, at parallelism 4.
            SqlFileITCase.ok(
                    "sql",
                    "--file",
                    file.toString(),
                    "--base",
                    base.toString(),
                    "--parallelism",
                    "4",
                    "--quiet");

            // Step 3: only the windows that end after the epoch, as Spark writes them.
            List<List<Object>> rows =
                    new Warehouse(Storage.location(base.resolve("warehouse").toFile()))
                            .sortedValues("hops");
            seen.add("run " + run + ": " + rows);
            if (!rows.equals(expected)) {
                failed.add(run);
            }
        }
        assertThat(failed)
                .as("runs whose table differs from %s:\n%s", expected, String.join("\n", seen))
                .isEmpty();
    }
}
