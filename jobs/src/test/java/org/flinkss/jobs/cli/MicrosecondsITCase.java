package org.flinkss.jobs.cli;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.flinkss.course.tables.EventTables;
import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Timestamps keep microseconds, as Spark's {@code TIMESTAMP} does (issue 13 point 6, issue 14 point
 * 7), through the command line: a landed {@code .123456Z} stays {@code .123456} in bronze, silver
 * and their exports; the late-row rule compares microseconds with the watermark (milliseconds) as
 * Spark does, {@code event_time <= watermark * 1000}: a row one microsecond after the watermark is
 * kept, one at it dropped; windows take rows at the microsecond edge as Spark does.
 */
class MicrosecondsITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path dir;

    private int batch;

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

    /** Lands one batch folder of events {@code id,user,type,ts}, as Spark's JSON lines. */
    private void land(String... events) throws Exception {
        Path folder = dir.resolve("base").resolve("events").resolve("batch_" + ++batch);
        Files.createDirectories(folder);
        List<String> lines = new ArrayList<>();
        for (String e : events) {
            String[] f = e.split(",");
            lines.add(
                    String.format(
                            "{\"event_id\":%s,\"user_id\":%s,\"event_type\":\"%s\","
                                    + "\"event_ts\":\"%s\",\"amount\":1.5}",
                            f[0], f[1], f[2], f[3]));
        }
        Path tmp = folder.resolve(".part-00000.json.tmp");
        Files.write(tmp, lines);
        Files.move(tmp, folder.resolve("part-00000.json"));
    }

    private List<String> export(String table) {
        return ok("table", "export", table, "--csv").out().lines().toList();
    }

    @Test
    void aLandedEventKeepsItsMicrosecondsInBronzeSilverAndTheirOutput() throws Exception {
        land(
                "1,7,view,2025-03-01T00:00:00.123456Z",
                "2,7,buy,2025-03-01T00:00:00.120000Z",
                "3,8,view,2025-03-01T00:01:00.000001Z");
        ok("run", "pipeline", "--quiet");

        for (String table : List.of("events_bronze", "events_silver")) {
            assertThat(export(table))
                    .as(table)
                    .contains(
                            "1,7,view,2025-03-01T00:00:00.123456Z,1.5",
                            "2,7,buy,2025-03-01T00:00:00.120Z,1.5",
                            "3,8,view,2025-03-01T00:01:00.000001Z,1.5");
        }
        // show() as Spark casts a timestamp to text: the fraction without its trailing zeros.
        assertThat(ok("table", "show", "events_bronze").out())
                .contains(
                        "2025-03-01 00:00:00.123456",
                        "2025-03-01 00:00:00.12 ",
                        "2025-03-01 00:01:00.000001");
    }

    @ParameterizedTest
    @ValueSource(strings = {"datastream", "table"})
    void aRowOneMicrosecondAfterTheWatermarkIsKeptAndOneAtItDropped(String api) throws Exception {
        // Round 1: the newest event 00:20 makes the watermark 00:10 (10-minute delay).
        land("1,1,view,2025-03-01T00:20:00.000000Z");
        ok("run", "bronze", "--quiet");
        ok("run", "dedup", "--quiet", "--api", api);
        // Round 2: one row exactly at the watermark, one a microsecond after it.
        land("2,2,view,2025-03-01T00:10:00.000000Z", "3,3,view,2025-03-01T00:10:00.000001Z");
        ok("run", "bronze", "--quiet");
        ok("run", "dedup", "--quiet", "--api", api);

        assertThat(export("events_dedup"))
                .containsExactly(
                        "event_id,user_id,event_type,event_ts,amount",
                        "1,1,view,2025-03-01T00:20:00.000Z,1.5",
                        "3,3,view,2025-03-01T00:10:00.000001Z,1.5");
        assertThat(export("events_dedup_late"))
                .hasSize(2)
                .anyMatch(
                        l ->
                                l.startsWith(
                                        "2,2,view,2025-03-01T00:10:00.000Z,1.5,"
                                                + "2025-03-01T00:10:00.000Z,"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"datastream", "table"})
    void aKeyIsRememberedUntilTheWatermarkPassesItsEventTimeInMicrosecondsPlusTheDelay(String api)
            throws Exception {
        // Spark keeps event 10 (00:00:00.000500) until watermark * 1000 >= its time + 10 min,
        // i.e. until a watermark of 00:10:00.001, not 00:10:00.000.
        land("10,1,view,2025-03-01T00:00:00.000500Z", "1,1,view,2025-03-01T00:10:00.000000Z");
        ok("run", "bronze", "--quiet");
        ok("run", "dedup", "--quiet", "--api", api);
        land("2,2,view,2025-03-01T00:20:00.000000Z"); // the watermark becomes 00:10:00.000
        ok("run", "bronze", "--quiet");
        ok("run", "dedup", "--quiet", "--api", api);
        // A duplicate of 10, on time (after the watermark): still a duplicate for Spark.
        land("10,1,view,2025-03-01T00:10:00.001600Z");
        ok("run", "bronze", "--quiet");
        ok("run", "dedup", "--quiet", "--api", api);

        assertThat(export("events_dedup"))
                .containsExactly(
                        "event_id,user_id,event_type,event_ts,amount",
                        "1,1,view,2025-03-01T00:10:00.000Z,1.5",
                        "2,2,view,2025-03-01T00:20:00.000Z,1.5",
                        "10,1,view,2025-03-01T00:00:00.000500Z,1.5");
    }

    @Test
    void aTableOfAnEarlierVersionInMillisecondsIsReadAndAWriterIsToldToReset() throws Exception {
        // A bronze table as an earlier version left it: event_ts TIMESTAMP_LTZ(3), with rows.
        land("1,1,view,2025-03-01T00:00:00.000Z");
        ok("run", "bronze", "--quiet");
        Warehouse warehouse =
                new Warehouse(Storage.location(dir.resolve("base").resolve("warehouse").toFile()));
        DeltaTable bronze = warehouse.delta("events_bronze");
        RowType oldRow = millisecondsOf(EventTables.EVENT_ROW);
        bronze.replace(oldRow, bronze.properties());
        DataFile file =
                DataFiles.write(
                        new org.apache.flink.core.fs.Path(warehouse.folder("events_bronze")),
                        oldRow,
                        List.of(
                                GenericRowData.of(
                                        1L,
                                        1,
                                        StringData.fromString("view"),
                                        TimestampData.fromEpochMillis(1_740_787_200_000L),
                                        1.5)));
        bronze.append("an-earlier-version", 0, List.of(file));
        assertThat(bronze.rowType()).isEqualTo(oldRow);

        // Read: by the table commands, and as a stream by the queries after bronze.
        assertThat(export("events_bronze")).contains("1,1,view,2025-03-01T00:00:00.000Z,1.5");
        ok("run", "win5", "--quiet");

        // Written: refused before any data moves, saying why and what to do.
        land("2,2,view,2025-03-01T00:00:00.123456Z");
        long version = bronze.version();
        List<String> args =
                List.of("run", "bronze", "--quiet", "--base", dir.resolve("base").toString());
        CliOutput refused = cli(args.toArray(String[]::new));
        assertThat(refused.code()).isNotZero();
        assertThat(refused.err())
                .contains("events_bronze", "milliseconds", "microseconds", "reset bronze");
        assertThat(bronze.version()).isEqualTo(version);

        // reset bronze: the table takes the new columns, and the next run keeps microseconds.
        ok("reset", "bronze");
        ok("run", "bronze", "--quiet");
        assertThat(warehouse.delta("events_bronze").rowType()).isEqualTo(EventTables.EVENT_ROW);
        assertThat(export("events_bronze"))
                .containsExactly(
                        "event_id,user_id,event_type,event_ts,amount",
                        "1,1,view,2025-03-01T00:00:00.000Z,1.5",
                        "2,2,view,2025-03-01T00:00:00.123456Z,1.5");
    }

    /** The row type with every timestamp in milliseconds, as an earlier version created tables. */
    private static RowType millisecondsOf(RowType rowType) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (RowType.RowField f : rowType.getFields()) {
            fields.add(
                    new RowType.RowField(
                            f.getName(),
                            f.getType() instanceof LocalZonedTimestampType
                                    ? new LocalZonedTimestampType(f.getType().isNullable(), 3)
                                    : f.getType()));
        }
        return new RowType(fields);
    }

    @Test
    void windowsTakeRowsAtTheMicrosecondEdgeAsSparkDoes() throws Exception {
        // Round 1: the watermark becomes 00:05.
        land("1,1,view,2025-03-01T00:15:00.000000Z");
        ok("run", "bronze", "--quiet");
        ok("run", "win5", "--quiet");
        ok("run", "sessions", "--quiet");
        // Round 2: the last microsecond of [00:00, 00:05), which has ended; the first of [00:05,
        // 00:10); and, for sessions (2-minute gap), a row whose session alone would end at
        // 00:05:00.000001, one microsecond after the watermark (Spark keeps it), and one whose
        // session would end at the watermark (dropped).
        land(
                "2,2,view,2025-03-01T00:04:59.999999Z",
                "3,3,view,2025-03-01T00:05:00.000000Z",
                "4,4,view,2025-03-01T00:03:00.000001Z",
                "6,6,view,2025-03-01T00:03:00.000000Z");
        ok("run", "bronze", "--quiet");
        ok("run", "win5", "--quiet");
        ok("run", "sessions", "--quiet");
        // Round 3: the watermark moves past every window, which are then emitted.
        land("5,5,view,2025-03-01T01:00:00.000000Z");
        ok("run", "bronze", "--quiet");
        ok("run", "win5", "--quiet");
        ok("run", "sessions", "--quiet");

        assertThat(export("events_5min"))
                .contains(
                        "2025-03-01T00:05:00.000Z,2025-03-01T00:10:00.000Z,view,1,1.5",
                        "2025-03-01T00:15:00.000Z,2025-03-01T00:20:00.000Z,view,1,1.5")
                .noneMatch(l -> l.startsWith("2025-03-01T00:00:00.000Z"));
        assertThat(export("events_5min_late"))
                .anyMatch(l -> l.startsWith("2,2,view,2025-03-01T00:04:59.999999Z,"))
                .anyMatch(l -> l.startsWith("4,4,view,2025-03-01T00:03:00.000001Z,"));
        assertThat(export("events_sessions"))
                .as("user 4's session: kept, one microsecond after the watermark")
                .anyMatch(l -> l.contains(",4,1,1.5"));
        assertThat(export("events_sessions_late"))
                .anyMatch(l -> l.startsWith("6,6,view,2025-03-01T00:03:00.000Z,"))
                .noneMatch(l -> l.startsWith("4,") || l.startsWith("2,"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"datastream", "table"})
    void sessionsAndTheJoinsRangeAreSparksToTheMicrosecond(String api) throws Exception {
        // Round 1. Sessions (2-minute gap): user 1's rows 0.5 ms less than one gap apart share a
        // session; user 2's, 0.5 ms more, in the same milliseconds, do not. Join: user 3's buy
        // exactly 5 minutes after the view to the microsecond matches, one 1 us later does not;
        // user 4's view matches nothing.
        land(
                "1,1,click,2025-03-01T00:00:00.000700Z",
                "2,1,click,2025-03-01T00:02:00.000200Z",
                "3,2,click,2025-03-01T00:00:00.000200Z",
                "4,2,click,2025-03-01T00:02:00.000700Z",
                "7,3,view,2025-03-01T00:00:00.000123Z",
                "8,3,buy,2025-03-01T00:05:00.000123Z",
                "9,3,buy,2025-03-01T00:05:00.000124Z",
                "10,4,view,2025-03-01T00:01:00.000500Z");
        runAll(api);
        // Round 2: views and buys at 00:30 move every watermark to 00:20.
        land("11,5,view,2025-03-01T00:30:00.000000Z", "12,6,buy,2025-03-01T00:30:00.000000Z");
        runAll(api);

        assertThat(export("events_sessions"))
                .as("sessions start and end at their rows' microseconds")
                .contains(
                        "window_start,window_end,user_id,events,amount",
                        "2025-03-01T00:00:00.000700Z,2025-03-01T00:04:00.000200Z,1,2,3.0",
                        "2025-03-01T00:00:00.000200Z,2025-03-01T00:02:00.000200Z,2,1,1.5",
                        "2025-03-01T00:02:00.000700Z,2025-03-01T00:04:00.000700Z,2,1,1.5")
                .noneMatch(l -> l.contains(",2,2,3.0"));
        assertThat(export("view_then_buy")).containsExactly("user_id,view_id,buy_id", "3,7,8");
        assertThat(export("view_then_buy_left"))
                .containsExactlyInAnyOrder("user_id,view_id,buy_id", "3,7,8", "4,10,");
    }

    @Test
    void aSessionsOrJoinCheckpointInMillisecondsIsRefusedWithResetAndResetStartsItAnew()
            throws Exception {
        land("1,1,view,2025-03-01T00:00:00.000700Z", "2,1,buy,2025-03-01T00:02:00.000200Z");
        ok("run", "bronze", "--quiet");
        for (String query : List.of("sessions", "view-then-buy", "view-then-buy-outer")) {
            ok("run", query, "--quiet");
            // The identity an earlier version recorded: the same query without microseconds.
            Path meta = dir.resolve("base").resolve("_cp").resolve(query).resolve("metadata.json");
            String identity = Files.readString(meta);
            assertThat(identity).contains(", microseconds");
            Files.writeString(meta, identity.replace(", microseconds", ""));

            CliOutput refused =
                    cli("run", query, "--quiet", "--base", dir.resolve("base").toString());
            assertThat(refused.code()).as(query).isNotZero();
            assertThat(refused.err()).contains("belongs to query", "reset " + query);

            ok("reset", query);
            ok("run", query, "--quiet");
        }
    }

    private void runAll(String api) {
        ok("run", "bronze", "--quiet");
        ok("run", "sessions", "--quiet", "--api", api);
        ok("run", "view-then-buy", "--quiet", "--api", api);
        ok("run", "view-then-buy", "--outer", "--quiet", "--api", api);
    }
}
