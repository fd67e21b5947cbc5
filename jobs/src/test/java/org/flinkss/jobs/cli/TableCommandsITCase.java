package org.flinkss.jobs.cli;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.tables.EventTables;
import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table commands on Delta tables, through the command line on one base: {@code table history},
 * time travel ({@code --version}, {@code --timestamp}), {@code reset} leaving an empty table (issue
 * 14 point 15), a second writer refused before any data moves (point 4), {@code table vacuum}'s
 * retention check, and {@code table convert} of a folder of the earlier format.
 */
class TableCommandsITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir java.nio.file.Path dir;

    private static CliOutput cli(String... args) {
        return CliOutput.of(args);
    }

    private CliOutput ok(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--base", dir.resolve("base").toString()));
        CliOutput o = cli(all.toArray(String[]::new));
        assertThat(o.code()).as("%s: %s%s", all, o.out(), o.err()).isZero();
        return o;
    }

    private CliOutput refused(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--base", dir.resolve("base").toString()));
        CliOutput o = cli(all.toArray(String[]::new));
        assertThat(o.code()).as("%s: %s%s", all, o.out(), o.err()).isNotZero();
        return o;
    }

    private static long count(CliOutput o) {
        return Long.parseLong(o.out().trim().replaceAll("(?s).*?(\\d+)\\s*$", "$1"));
    }

    @Test
    void historyTimeTravelResetSecondWriterAndVacuum() throws Exception {
        ok("land-events", "--batch", "1", "--start", "0");
        ok("run", "bronze", "--quiet");
        ok("land-events", "--batch", "2", "--start", "500");
        ok("run", "bronze", "--quiet");
        assertThat(count(ok("table", "count", "events_bronze"))).isEqualTo(1000);

        // History: the creation and one streaming commit per batch, newest first, with batch ids.
        String history = ok("table", "history", "events_bronze").out();
        assertThat(history).contains("version", "operation", "batch_id", "rows_added");
        assertThat(history).contains("STREAMING UPDATE", "CREATE TABLE");
        Warehouse warehouse =
                new Warehouse(Storage.location(dir.resolve("base").resolve("warehouse").toFile()));
        DeltaTable bronze = warehouse.delta("events_bronze");
        long afterFirstBatch = bronze.version() - 1;

        // Time travel: the version after the first batch has its 500 rows.
        List<String> asOfFirst =
                ok("table", "export", "events_bronze", "--csv", "--version", "" + afterFirstBatch)
                        .out()
                        .lines()
                        .toList();
        assertThat(asOfFirst).hasSize(501);
        // As of the time of that commit: the same version (a time after the newest commit is
        // refused, as Delta refuses it).
        String committedAt =
                bronze.history(100).stream()
                        .filter(h -> h.version() == afterFirstBatch)
                        .findFirst()
                        .orElseThrow()
                        .timestamp()
                        .toString();
        assertThat(
                        ok("table", "export", "events_bronze", "--csv", "--timestamp", committedAt)
                                .out()
                                .lines())
                .hasSize(501);
        assertThat(
                        refused(
                                        "table",
                                        "export",
                                        "events_bronze",
                                        "--csv",
                                        "--timestamp",
                                        "2999-01-01T00:00:00Z")
                                .err())
                .contains("events_bronze", "no version as of");
        // table show reads the same snapshot as of a time: 500 rows then, 1,000 now; the two
        // ways of naming a version are exclusive, and a time after the newest commit is refused.
        assertThat(ok("table", "show", "events_bronze", "--timestamp", committedAt).out())
                .contains("only showing top 20 of 500 rows");
        assertThat(ok("table", "show", "events_bronze").out())
                .contains("only showing top 20 of 1000 rows");
        assertThat(
                        refused(
                                        "table",
                                        "show",
                                        "events_bronze",
                                        "--timestamp",
                                        "2999-01-01T00:00:00Z")
                                .err())
                .contains("events_bronze", "no version as of");
        assertThat(
                        refused(
                                        "table",
                                        "show",
                                        "events_bronze",
                                        "--version",
                                        "1",
                                        "--timestamp",
                                        committedAt)
                                .err())
                .contains("--version", "--timestamp");
        assertThat(ok("table", "show", "events_bronze", "--version", "0").out())
                .as("version 0: the empty table as created")
                .doesNotContain("view", "buy");

        // A second writer: another base sharing the warehouse. Refused before any data moves,
        // naming both checkpoints.
        long versionBefore = bronze.version();
        Files.createDirectories(dir.resolve("other").resolve("events")); // a base, landed nothing
        CliOutput other =
                cli(
                        "run",
                        "bronze",
                        "--quiet",
                        "--base",
                        dir.resolve("other").toString(),
                        "--warehouse",
                        Storage.localFile(warehouse.location(), "a test file").toPath().toString());
        assertThat(other.code()).isNotZero();
        assertThat(other.err())
                .contains("events_bronze", "is written by", "cannot write it")
                .contains(dir.resolve("base").getFileName().toString())
                .contains(dir.resolve("other").getFileName().toString());
        assertThat(bronze.version()).isEqualTo(versionBefore);

        // Reset: the table is emptied by one commit (it stays a table, with its columns), and the
        // next run reprocesses everything into it.
        ok("reset", "bronze");
        assertThat(warehouse.exists("events_bronze")).isTrue();
        assertThat(count(ok("table", "count", "events_bronze"))).isZero();
        assertThat(bronze.version()).isEqualTo(versionBefore + 1);
        ok("run", "bronze", "--quiet");
        assertThat(count(ok("table", "count", "events_bronze"))).isEqualTo(1000);
        // The rows before the reset stay readable by version until a vacuum.
        assertThat(
                        ok(
                                        "table",
                                        "export",
                                        "events_bronze",
                                        "--csv",
                                        "--version",
                                        "" + versionBefore)
                                .out()
                                .lines())
                .hasSize(1001);

        // Vacuum: a retention under Delta's 7 days is refused unless forced.
        CliOutput shortRetention = refused("table", "vacuum", "events_bronze", "--retain", "1h");
        assertThat(shortRetention.err()).contains("--force");
        assertThat(ok("table", "vacuum", "events_bronze").out()).contains("deleted 0");
        Thread.sleep(1100);
        CliOutput vacuumed = ok("table", "vacuum", "events_bronze", "--retain", "1s", "--force");
        assertThat(vacuumed.out()).containsPattern("deleted [1-9]\\d* unreferenced data file");
        assertThat(count(ok("table", "count", "events_bronze"))).isEqualTo(1000);
        assertThat(ok("table", "export", "events_bronze", "--csv").out().lines()).hasSize(1001);
    }

    @Test
    void aFolderOfTheEarlierFormatIsRefusedUntilConvertedInPlace() throws Exception {
        java.nio.file.Path legacy = dir.resolve("base").resolve("warehouse").resolve("old_events");
        Files.createDirectories(legacy);
        StringBuilder columns = new StringBuilder();
        for (var f : EventTables.EVENT_ROW.getFields()) {
            columns.append(columns.length() == 0 ? "" : ",")
                    .append("{\"name\":\"")
                    .append(f.getName())
                    .append("\",\"type\":\"")
                    .append(f.getType().asSerializableString())
                    .append("\"}");
        }
        Files.writeString(
                legacy.resolve("_table.json"),
                "{\"name\":\"old_events\",\"writer\":\"bronze\",\"columns\":[" + columns + "]}");
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            rows.add(
                    GenericRowData.of(
                            (long) i,
                            i,
                            StringData.fromString("view"),
                            TimestampData.fromEpochMillis(1_000L * i),
                            1.5 * i));
        }
        DataFiles.writeFile(
                new Path(legacy.resolve("part-0-0.parquet").toUri()), EventTables.EVENT_ROW, rows);

        CliOutput refusal = refused("table", "count", "old_events");
        assertThat(refusal.err()).contains("table convert old_events").doesNotContain("\n\n");
        assertThat(ok("table", "convert", "old_events").out()).contains("converted", "7 rows");
        assertThat(count(ok("table", "count", "old_events"))).isEqualTo(7);
        assertThat(ok("table", "history", "old_events").out().lines())
                .as("the header, a separator line perhaps, and version 0")
                .anySatisfy(l -> assertThat(l).contains("0", "7"));
        assertThat(ok("table", "convert", "old_events").out()).contains("a Delta table already");
    }
}
