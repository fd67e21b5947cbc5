package org.flinkss.jobs.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --jdbc-url} where it would be ignored (issue 38 point 7): a command, or a command's query,
 * that never uses the SQL database refuses it in one line (exit 2, a usage error) that names the
 * command and the runs that do use the database, before anything is created. The commands and runs
 * that use it take it. No Flink here: every refusal happens before a job.
 */
class JdbcUrlRefusalTest {

    @TempDir Path dir;

    /** {@code args} with {@code --base} (a folder that does not exist) and a SQLite URL. */
    private CliOutput withJdbcUrl(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(
                List.of(
                        "--base",
                        dir.resolve("base").toString(),
                        "--jdbc-url",
                        "jdbc:sqlite:" + dir.resolve("db.sqlite")));
        return CliOutput.of(all.toArray(String[]::new));
    }

    private void refused(String named, String... args) {
        CliOutput o = withJdbcUrl(args);
        assertThat(o.code()).as("exit code; stderr: %s", o.err()).isEqualTo(2);
        assertThat(o.err().lines()).as("one line: %s", o.err()).hasSize(1);
        assertThat(o.err())
                .startsWith("error: --jdbc-url: '" + named + "' does not use the SQL database")
                .contains(
                        "run latest, and run win5, sliding, gold with --output-mode update write"
                                + " it")
                .contains("Leave --jdbc-url out");
        assertThat(Files.exists(dir.resolve("base"))).as("base created").isFalse();
        assertThat(Files.exists(dir.resolve("db.sqlite"))).as("database created").isFalse();
    }

    /** Taken: whatever the command then says (the base is missing), it is not about the URL. */
    private void taken(String... args) {
        CliOutput o = withJdbcUrl(args);
        assertThat(o.err()).as("stderr").doesNotContain("does not use the SQL database");
    }

    @Test
    void landingCommandsRefuseTheUrl() {
        refused("land-events", "land-events", "--batch", "1", "--start", "0", "--n", "5");
        refused("land-customers", "land-customers");
    }

    @Test
    void runsThatWriteOnlyDeltaTablesRefuseTheUrl() {
        refused("run bronze", "run", "bronze");
        refused("run win5", "run", "win5");
        refused("run win5", "run", "win5", "--output-mode", "complete");
        refused("run sessions", "run", "sessions");
        refused("run view-then-buy-outer", "run", "view-then-buy", "--outer");
        refused("run pipeline", "run", "pipeline");
        refused("sql --file", "sql", "--file", dir.resolve("q.sql").toString());
    }

    @Test
    void runsThatWriteTheDatabaseTakeTheUrl() {
        taken("run", "latest");
        taken("run", "win5", "--output-mode", "update");
        taken("run", "gold", "--output-mode", "update");
    }

    @Test
    void checkpointCommandsRefuseTheUrlForAQueryWhoseTablesAreNeverInTheDatabase() {
        refused("progress", "progress", "latest");
        refused("status bronze", "status", "bronze");
        refused("reset dedup", "reset", "dedup");
        taken("status", "latest");
        taken("status", "win5");
        taken("reset", "latest");
    }

    @Test
    void tableCommandsThatOnlyKnowDeltaRefuseTheUrlAndReadersTakeIt() {
        refused("table history", "table", "history", "events_bronze");
        refused("table changes", "table", "changes", "events_latest");
        refused("table vacuum", "table", "vacuum", "events_bronze");
        refused("table convert", "table", "convert", "events_bronze");
        refused("table repair", "table", "repair", "events_bronze");
        refused("table constraint", "table", "constraint", "list", "events_bronze");
        taken("table", "count", "events_latest");
        taken("table", "show", "events_latest");
    }
}
