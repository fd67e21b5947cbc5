package org.flinkss.jobs;

import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.testutils.MiniClusters;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code 'changelog-mode' = 'all'}: {@code events_latest}'s change data feed read by {@code sql
 * --file} as a Flink changelog (update pre-images retract, post-images add), so a {@code GROUP BY}
 * over it follows the table's current rows: after two batches of {@code run latest}, the second
 * changing the type of half the ids, the counts by type equal those of {@code events_latest}
 * itself, where Spark's form (every change an insert) would count each update twice.
 */
class SqlChangeFeedITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path tmp;

    @Test
    void theChangelogFormOfTheFeedFollowsTheTablesCurrentRows() throws Exception {
        Path base = tmp.resolve("base");
        // Step 1: ids 0..99, then ids 0..49 again as type "changed": 50 updates.
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 100));
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
        SqlFileITCase.ok("run", "latest", "--base", base.toString(), "--quiet");
        List<Event> changed = new ArrayList<>();
        for (Event e : EventGenerator.events(0, 50)) {
            changed.add(new Event(e.eventId, e.userId, "changed", e.eventTs, e.amount));
        }
        LocalEventFiles.writeBatch(base.resolve("events"), 2, changed);
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
        SqlFileITCase.ok("run", "latest", "--base", base.toString(), "--quiet");

        // Step 2: the feed as a changelog, counted by type into a complete-mode table.
        Path sql = tmp.resolve("feed-counts.sql");
        Files.writeString(
                sql,
                "CREATE TEMPORARY TABLE latest_changes (event_id BIGINT, event_type STRING)\n"
                        + "  WITH ('connector' = 'delta', 'table' = 'events_latest',\n"
                        + "        'read-change-feed' = 'true', 'starting-version' = '0',\n"
                        + "        'changelog-mode' = 'all');\n"
                        + "CREATE TEMPORARY TABLE type_counts (event_type STRING, n BIGINT,\n"
                        + "  PRIMARY KEY (event_type) NOT ENFORCED)\n"
                        + "  WITH ('connector' = 'delta', 'table' = 'latest_type_counts',"
                        + " 'sink.mode' = 'complete');\n"
                        + "INSERT INTO type_counts SELECT event_type, COUNT(*) FROM latest_changes"
                        + " GROUP BY event_type;\n",
                StandardCharsets.UTF_8);
        SqlFileITCase.ok("sql", "--file", sql.toString(), "--base", base.toString(), "--quiet");

        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        Map<String, Long> expected = new TreeMap<>();
        for (RowData row : table(warehouse, "events_latest").snapshot().rows()) {
            expected.merge(row.getString(2).toString(), 1L, Long::sum);
        }
        Map<String, Long> counted = new TreeMap<>();
        for (RowData row : table(warehouse, "latest_type_counts").snapshot().rows()) {
            counted.put(row.getString(0).toString(), row.getLong(1));
        }
        assertThat(expected).as("events_latest by type").containsEntry("changed", 50L);
        assertThat(counted)
                .as("counts of the feed read as a changelog vs events_latest's own rows")
                .isEqualTo(expected);
    }

    private static DeltaTable table(Warehouse warehouse, String name) {
        return DeltaTable.forPath(warehouse.uri(name));
    }
}
