package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Event-time completeness in every commit (issue 35 point 3), through the command line: win5 in
 * append mode (base {@code append}) and in update mode (base {@code update}) over the same two
 * rounds; {@code table history} shows each batch's watermark and final bound; {@code table show
 * --final} of the update-mode table equals the append-mode table, whose windows are written only
 * when final; {@code --until-final T} on a SQL query over events_5min is refused while the table is
 * final only up to an earlier time, and runs once a round has made it final.
 */
class FinalWindowsITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /** Round 1 reads events up to 01:23:10: its watermark is 10 minutes earlier. */
    private static final String ROUND_1_WATERMARK = "2025-03-01T01:13:10.000Z";

    /** Round 2 reads events up to 02:46:30. */
    private static final String ROUND_2_WATERMARK = "2025-03-01T02:36:30.000Z";

    private static final String UNTIL = "2025-03-01T02:00:00Z";

    /** A query downstream of events_5min: a copy of its windows. */
    private static final String DOWNSTREAM =
            """
            CREATE TEMPORARY TABLE events_5min (
              window_start TIMESTAMP_LTZ(3), window_end TIMESTAMP_LTZ(3), event_type STRING,
              events BIGINT, amount DOUBLE
            ) WITH ('connector' = 'delta', 'table' = 'events_5min');
            CREATE TEMPORARY TABLE windows_copy (
              window_start TIMESTAMP_LTZ(3), window_end TIMESTAMP_LTZ(3), event_type STRING,
              events BIGINT, amount DOUBLE
            ) WITH ('connector' = 'delta', 'table' = 'windows_copy');
            INSERT INTO windows_copy SELECT * FROM events_5min;
            """;

    @TempDir Path dir;

    @Test
    void commitsRecordTheWatermarkAndFinalShowsTheWindowsAppendModeWrites() throws Exception {
        Path append = dir.resolve("append");
        Path update = dir.resolve("update");
        Path sql = dir.resolve("copy.sql");
        Files.writeString(sql, DOWNSTREAM, StandardCharsets.UTF_8);
        Warehouse appended = new Warehouse(Storage.location(append.resolve("warehouse").toFile()));

        // Step 1: round 1 in both bases, win5 in append mode and in update mode.
        round(append, update, 1, 0);
        String history = ok(append, "table", "history", "events_5min").out();
        assertThat(history).contains("watermark", "final_before");
        assertThat(history.lines().skip(3).findFirst().orElseThrow())
                .as("the newest commit, the batch's")
                .contains("STREAMING UPDATE", ROUND_1_WATERMARK + " | " + ROUND_1_WATERMARK);

        // Step 2: the update-mode table holds open windows too; --final shows what append wrote.
        assertFinalEqualsAppendMode(append, update, ROUND_1_WATERMARK);

        // Step 3: bronze records no final windows: --final is refused, naming the table.
        CliOutput bronze = cli(append, "table", "show", "events_bronze", "--final");
        assertThat(bronze.code()).isNotZero();
        assertThat(bronze.err()).contains("events_bronze", "records no final windows");

        // Step 4: events_5min is final only up to 01:13:10, not 02:00: the downstream run is
        // refused, naming the table, T and how far it is final, and reads and writes nothing.
        CliOutput early = cli(append, "sql", "--file", sql.toString(), "--until-final", UNTIL);
        assertThat(early.code()).as(early.out() + early.err()).isEqualTo(1);
        assertThat(early.err())
                .contains(
                        "--until-final 2025-03-01T02:00:00Z",
                        "table events_5min is final only up to " + ROUND_1_WATERMARK);
        assertThat(appended.exists("windows_copy")).isFalse();

        // Step 5: round 2 moves the watermark past 02:00: the same run reads and commits.
        round(append, update, 2, 500);
        assertThat(ok(append, "table", "history", "events_5min").out())
                .contains(ROUND_2_WATERMARK, ROUND_1_WATERMARK);
        assertFinalEqualsAppendMode(append, update, ROUND_2_WATERMARK);
        ok(append, "sql", "--file", sql.toString(), "--until-final", UNTIL, "--quiet");
        assertThat(appended.sortedValues("windows_copy"))
                .isNotEmpty()
                .containsExactlyElementsOf(appended.sortedValues("events_5min"));
    }

    /** 500 events from {@code start} landed in both bases, bronze, then win5 in each mode. */
    private static void round(Path append, Path update, int batch, int start) {
        for (Path base : List.of(append, update)) {
            LocalEventFiles.writeBatch(
                    base.resolve("events"), batch, EventGenerator.events(start, 500));
            ok(base, "run", "bronze", "--quiet");
        }
        ok(append, "run", "win5", "--quiet");
        ok(update, "run", "win5", "--output-mode", "update", "--quiet");
    }

    private static void assertFinalEqualsAppendMode(Path append, Path update, String bound) {
        List<String> all =
                ok(update, "table", "show", "events_5min", "--limit", "1000")
                        .out()
                        .lines()
                        .toList();
        List<String> shown =
                ok(update, "table", "show", "events_5min", "--final", "--limit", "1000")
                        .out()
                        .lines()
                        .toList();
        List<String> appendMode =
                ok(append, "table", "show", "events_5min", "--limit", "1000")
                        .out()
                        .lines()
                        .toList();
        String last = shown.get(shown.size() - 1);
        assertThat(last).contains("window_end is at or before " + bound);
        assertThat(shown.subList(0, shown.size() - 1))
                .as("update mode's final windows are append mode's windows")
                .containsExactlyElementsOf(appendMode);
        assertThat(all.size())
                .as("update mode writes open windows too")
                .isGreaterThan(shown.size());
        // Every window of the append-mode table is final: --final shows them all.
        List<String> appendFinal =
                ok(append, "table", "show", "events_5min", "--final", "--limit", "1000")
                        .out()
                        .lines()
                        .toList();
        assertThat(appendFinal.subList(0, appendFinal.size() - 1))
                .containsExactlyElementsOf(appendMode);
    }

    private static CliOutput cli(Path base, String... args) {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--base";
        all[args.length + 1] = base.toString();
        return CliOutput.of(all);
    }

    private static CliOutput ok(Path base, String... args) {
        CliOutput out = cli(base, args);
        assertThat(out.code()).as(String.join(" ", args) + "\n" + out.out() + out.err()).isZero();
        return out;
    }
}
