package org.flinkss.jobs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A SQL file that cannot run is refused before anything is written: one line on standard error that
 * names the file, the statement and its line and says what is wrong, exit code 2, no table and no
 * checkpoint left.
 */
class SqlFileErrorsITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir static Path base;

    @BeforeAll
    static void bronze() {
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 100));
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
    }

    private static final String BRONZE =
            "CREATE TEMPORARY TABLE bronze (\n" // line 1
                    + "  event_id BIGINT, event_type STRING, amount %s\n" // line 2
                    + ") WITH ('connector' = 'delta', 'table' = 'events_bronze');\n"; // line 3

    private static final String OUT =
            "CREATE TEMPORARY TABLE out_table (event_type STRING, n BIGINT)\n" // line 4
                    + "  WITH ('connector' = 'delta', 'table' = 'bad_out');\n"; // line 5

    static Stream<Arguments> badFiles() {
        return Stream.of(
                Arguments.of(
                        "syntax",
                        String.format(BRONZE, "DOUBLE")
                                + OUT
                                + "INSERT INTO out_table\n" // line 6
                                + "SELECT event_type COUNT(*) FROM bronze GROUP BY event_type;\n",
                        7,
                        3,
                        "Incorrect syntax near the keyword 'COUNT' at line 7, column 19"),
                Arguments.of(
                        "unknown-table",
                        String.format(BRONZE, "DOUBLE")
                                + OUT
                                + "INSERT INTO out_table\n"
                                + "SELECT event_type, COUNT(*) FROM nowhere GROUP BY event_type;\n",
                        7,
                        3,
                        "Object 'nowhere' not found"),
                Arguments.of(
                        "ddl-mismatch",
                        String.format(BRONZE, "INT")
                                + OUT
                                + "INSERT INTO out_table\n"
                                + "SELECT event_type, event_id FROM bronze;\n",
                        1,
                        1,
                        "declares column 'amount' as INT, and Delta table"),
                Arguments.of(
                        "updating-into-append",
                        String.format(BRONZE, "DOUBLE")
                                + OUT
                                + "INSERT INTO out_table\n"
                                + "SELECT event_type, COUNT(*) FROM bronze GROUP BY event_type;\n",
                        6,
                        3,
                        "its result is updated as rows arrive (GroupAggregate), and table"
                                + " 'out_table' is only appended to: give the table 'sink.mode' ="
                                + " 'complete'"),
                Arguments.of(
                        "no-change-feed",
                        BRONZE.replace(
                                                "'events_bronze'",
                                                "'events_bronze', 'read-change-feed' = 'true'")
                                        .formatted("DOUBLE")
                                + OUT
                                + "INSERT INTO out_table SELECT event_type, event_id FROM"
                                + " bronze;\n",
                        1,
                        1,
                        "(delta.enableChangeDataFeed is not set): a table of a MERGE, update-mode"
                                + " or complete-mode query gets it when that query is reset (reset"
                                + " <query>)"),
                Arguments.of(
                        "feed-option-without-feed",
                        BRONZE.replace(
                                                "'events_bronze'",
                                                "'events_bronze', 'starting-version' = '1'")
                                        .formatted("DOUBLE")
                                + OUT
                                + "INSERT INTO out_table SELECT event_type, event_id FROM"
                                + " bronze;\n",
                        1,
                        1,
                        "gives 'starting-version', an option of a change data feed: add"
                                + " 'read-change-feed' = 'true'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void aBadFileIsOneLineNamingFileStatementAndLineExitTwoAndWritesNothing(
            String name, String sql, int line, int statement, String what) throws IOException {
        Path file = base.resolve(name + ".sql");
        Files.writeString(file, sql, StandardCharsets.UTF_8);

        CliOutput out = CliOutput.of("sql", "--file", file.toString(), "--base", base.toString());

        assertThat(out.code()).as(out.err()).isEqualTo(2);
        List<String> lines = out.errLines();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0))
                .startsWith("error: " + file + ":" + line + ": statement " + statement + " (")
                .contains(what);
        assertThat(base.resolve("_cp").resolve(name)).doesNotExist();
        assertThat(
                        new Warehouse(Storage.location(base.resolve("warehouse").toFile()))
                                .exists("bad_out"))
                .isFalse();
    }
}
