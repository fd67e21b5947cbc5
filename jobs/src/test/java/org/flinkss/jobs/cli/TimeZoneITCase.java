package org.flinkss.jobs.cli;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeITCase;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.course.recompute.Recompute;
import org.flinkss.jobs.cli.options.Values;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.List;
import java.util.TimeZone;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Everything is computed in UTC (the course's session time zone) whatever the JVM's zone: the whole
 * suite runs under {@code TZ=America/New_York} (the parent pom), and this test sets that zone
 * itself so that it holds when run alone, from an IDE, too.
 */
class TimeZoneITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private TimeZone original;

    @BeforeEach
    void newYork() {
        original = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("America/New_York"));
    }

    @AfterEach
    void restore() {
        TimeZone.setDefault(original);
    }

    @Test
    void recomputeOfTheReadmesExampleReplacesClosedWindowsWithTheSameRowsInNewYork() {
        // Step 1: the commands of docs/command-line.md: batches 1 and 2, bronze, win5.
        RunOptions options = BronzeITCase.options(base, 2);
        Warehouse warehouse = new Warehouse(options.warehouse());
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);
        List<List<Object>> streamed = warehouse.sortedValues("events_5min");

        // Step 2: recompute 00:00 to 01:00 UTC: nothing was late, so every closed window of the
        // hour is rebuilt as it is (12 windows of 3 event types), neither deleted nor moved.
        Recompute.Result result =
                Recompute.recompute(
                        warehouse,
                        null,
                        options.base(),
                        "events_5min",
                        Values.timestamp("2025-03-01T00:00:00Z").toEpochMilli(),
                        Values.timestamp("2025-03-01T01:00:00Z").toEpochMilli());

        assertThat(result.removed).isEqualTo(12 * 3);
        assertThat(result.written).as("recomputed rows").isEqualTo(12 * 3);
        assertThat(warehouse.sortedValues("events_5min")).containsExactlyElementsOf(streamed);
    }
}
