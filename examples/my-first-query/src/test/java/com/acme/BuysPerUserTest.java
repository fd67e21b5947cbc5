package com.acme;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The query on the course's events, run by run on a MiniCluster, as {@code run --jar} runs it. */
class BuysPerUserTest {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    @Test
    void writesEachUsersClosedWindowsOnceAndKeepsTheOpenOnesForALaterRun() {
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .build();
        Warehouse warehouse = new Warehouse(options.warehouse());

        // Step 1: 500 events (83 minutes), bronze, then the query: the windows that ended by the
        // newest event time - 10 minutes.
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.Result first = QueryRunner.run(new BuysPerUser(), options);
        List<List<Object>> expected1 = expected(EventGenerator.events(0, 500));
        assertThat(expected1).isNotEmpty();
        assertThat(warehouse.sortedValues(BuysPerUser.TABLE)).isEqualTo(expected1);
        assertThat(first.numInputRows()).isEqualTo(500);

        // Step 2: nothing new: no batch, the table as it was.
        QueryRunner.Result again = QueryRunner.run(new BuysPerUser(), options);
        assertThat(again.numInputRows()).isZero();
        assertThat(again.batches()).isZero();
        assertThat(warehouse.sortedValues(BuysPerUser.TABLE)).isEqualTo(expected1);

        // Step 3: 500 more; the windows left open in step 1 close now, each written once.
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(new BuysPerUser(), options);
        List<List<Object>> expected2 = expected(EventGenerator.events(0, 1000));
        assertThat(expected2.size()).isGreaterThan(expected1.size());
        assertThat(warehouse.sortedValues(BuysPerUser.TABLE)).isEqualTo(expected2);
    }

    /**
     * The rows Spark writes: buys per user per 10-minute window, for the windows that end at or
     * before the watermark, the newest event time less 10 minutes.
     */
    static List<List<Object>> expected(List<Event> events) {
        long size = BuysPerUser.WINDOW.toMillis();
        long watermark =
                events.stream().mapToLong(e -> e.eventTs.toEpochMilli()).max().orElseThrow()
                        - BuysPerUser.WATERMARK_DELAY.toMillis();
        Map<String, double[]> groups = new TreeMap<>();
        Map<String, List<Object>> keys = new TreeMap<>();
        for (Event e : events) {
            long ts = e.eventTs.toEpochMilli();
            long start = ts - Math.floorMod(ts, size);
            if (!"buy".equals(e.eventType) || start + size > watermark) {
                continue;
            }
            String key = String.format("%020d/%05d", start, e.userId);
            keys.put(key, List.of(start, e.userId));
            double[] acc = groups.computeIfAbsent(key, k -> new double[2]);
            acc[0]++;
            acc[1] += e.amount;
        }
        List<List<Object>> rows = new ArrayList<>();
        groups.forEach(
                (key, acc) -> {
                    long start = (Long) keys.get(key).get(0);
                    rows.add(
                            List.of(
                                    Instant.ofEpochMilli(start),
                                    Instant.ofEpochMilli(start + size),
                                    keys.get(key).get(1),
                                    (long) acc[0],
                                    BigDecimal.valueOf(acc[1])
                                            .setScale(2, RoundingMode.HALF_UP)
                                            .doubleValue()));
                });
        return rows;
    }
}
