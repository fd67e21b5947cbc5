package org.flinkss.jobs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sql --file ... --expect TABLE.NAME:EXPR:ACTION} through the command line: the rule checks
 * the INSERT's Delta table (its rows evaluated by a Table API projection inside the SQL job's own
 * planning), a rule naming no table of the file is refused before the run, and {@code report} shows
 * the rule's counts.
 */
class SqlExpectationsITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    @Test
    void aRuleOnTheInsertsTableDropsCountsAndReportsAndOneOnNoTableIsRefused() throws Exception {
        List<Event> events = EventGenerator.events(0, 500);
        LocalEventFiles.writeBatch(base.resolve("events"), 1, events);
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
        Path sql = base.resolve("amounts.sql");
        Files.writeString(
                sql,
                "CREATE TEMPORARY TABLE events_bronze (event_id BIGINT, user_id INT, event_type"
                        + " STRING, event_ts TIMESTAMP_LTZ(3), amount DOUBLE) WITH ('connector' ="
                        + " 'delta', 'table' = 'events_bronze');\n"
                        + "CREATE TEMPORARY TABLE amounts (event_id BIGINT, amount DOUBLE) WITH"
                        + " ('connector' = 'delta', 'table' = 'amounts');\n"
                        + "INSERT INTO amounts SELECT event_id, amount FROM events_bronze;\n");
        long kept = events.stream().filter(e -> e.amount != null && e.amount >= 50).count();

        // Step 1: a rule on a table the file does not write: refused, nothing written.
        CliOutput refused =
                CliOutput.of(
                        "sql",
                        "--file",
                        sql.toString(),
                        "--base",
                        base.toString(),
                        "--expect",
                        "events_5min.some:amount > 0:warn");
        assertThat(refused.code()).isNotZero();
        assertThat(refused.err())
                .contains(
                        "expectation 'events_5min.some:amount > 0:warn' applies to no table of"
                                + " query 'amounts': it appends to the tables [amounts], not to"
                                + " 'events_5min'");
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        assertThat(warehouse.exists("amounts")).isFalse();

        // Step 2: the rule on the INSERT's table.
        SqlFileITCase.ok(
                "sql",
                "--file",
                sql.toString(),
                "--base",
                base.toString(),
                "--expect",
                "amounts.half:amount >= 50:drop",
                "--quiet");
        assertThat(warehouse.count("amounts")).isEqualTo(kept);
        // The rejected rows' table too: inside the SQL planner's translation, it is reached by no
        // sink of the plan, only by the query's environment.
        assertThat(warehouse.count("amounts_rejected")).isEqualTo(500 - kept);

        // Step 3: the report's Expectations table.
        SqlFileITCase.ok("report", "--base", base.toString());
        assertThat(Files.readString(base.resolve("report.html")))
                .contains(
                        "<td class=\"name\">amounts</td><td>amounts</td><td>half</td><td>drop</td>"
                                + "<td>"
                                + kept
                                + "</td><td>"
                                + (500 - kept)
                                + "</td><td>1</td>");
    }
}
