package org.flinkss.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code status <query>} on the checkpoints a user makes (bronze with {@code --rescued-data}, win5
 * in update mode), and the note {@code table count} and {@code table show} give for a table whose
 * rows are in the SQL database.
 */
class StatusITCase {

    @TempDir Path dir;

    private CliOutput ok(String... args) {
        CliOutput o = CliOutput.of(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    @Test
    void statusSaysWhatEachCheckpointWasMadeWithAndWhereItsTablesAre() {
        String base = dir.resolve("base").toString();
        for (int b = 0; b < 2; b++) {
            ok("land-events", "--base", base, "--batch", "" + b, "--start", "" + b * 500);
        }
        ok("run", "bronze", "--base", base, "--rescued-data", "--quiet");
        // The SQL path (without --jdbc-url update mode MERGEs into Delta); the commands below
        // find the same file as the base's default SQLite database.
        String sqlite = "jdbc:sqlite:" + dir.resolve("base/warehouse/warehouse.db");
        ok(
                "run",
                "win5",
                "--base",
                base,
                "--output-mode",
                "update",
                "--jdbc-url",
                sqlite,
                "--quiet");

        String bronze = ok("status", "bronze", "--base", base).out();
        assertThat(bronze)
                .contains("query bronze (checkpoint ")
                .contains("made with   API not recorded")
                .contains("output mode append, --rescued-data")
                .contains("source      FileStreamSource[")
                .containsPattern(
                        "last batch  0 at \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z \\(1000 rows read\\)")
                .contains("watermark   none")
                .containsPattern("savepoint   \\S+savepoint-")
                .containsPattern(
                        "events_bronze +Delta table file:\\S+/events_bronze/? \\(1,000 rows\\)");

        String win5 = ok("status", "win5", "--base", base).out();
        assertThat(win5)
                .contains("made with   API datastream, output mode update")
                .contains("stateful    window[datastream]: tumbling 5 min")
                .containsPattern("watermark   2025-03-01T\\d\\d:\\d\\d:\\d\\d.\\d{3}Z")
                .containsPattern(
                        "events_5min +SQL database jdbc:sqlite:\\S+warehouse.db, table events_5min"
                                + " \\(\\d+ rows\\)")
                .containsPattern("events_5min_late +Delta table ");

        // table count and show read it from the SQL database, and say so on stderr: stdout stays
        // the number, for scripts.
        CliOutput count = ok("table", "count", "events_5min", "--base", base);
        assertThat(count.out().strip()).matches("\\d+");
        assertThat(count.err())
                .contains("note: events_5min is a table of the SQL database jdbc:sqlite:");
        assertThat(ok("table", "show", "events_5min", "--base", base).err())
                .contains("note: events_5min is a table of the SQL database");
        assertThat(ok("table", "count", "events_bronze", "--base", base).err()).isEmpty();
    }

    @Test
    void statusOfAQueryThatNeverRanSaysSo() {
        CliOutput o = CliOutput.of("status", "sessions", "--base", dir.toString());
        assertThat(o.code()).isEqualTo(1);
        assertThat(o.err())
                .contains("query 'sessions' has no checkpoint at ")
                .contains("not run yet");
    }
}
