package org.flinkss.jobs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Delta's {@code ALTER TABLE t ADD CONSTRAINT name CHECK (expr)} and {@code DROP CONSTRAINT} as
 * statements of a {@code sql --file} script: one commit of the Delta table each, the property
 * {@code delta.constraints.<name>} as Spark reads it, refused when a row of the table breaks it,
 * and enforced by the script's own INSERT: a batch with a row that breaks it fails before it
 * commits, naming the constraint and the row, and leaves the table and the checkpoint as they were.
 */
class SqlConstraintsITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private static final String TABLES =
            "CREATE TEMPORARY TABLE events_bronze (event_id BIGINT, user_id INT, event_type STRING,"
                    + " event_ts TIMESTAMP_LTZ(3), amount DOUBLE) WITH ('connector' = 'delta',"
                    + " 'table' = 'events_bronze');\n"
                    + "CREATE TEMPORARY TABLE amounts (event_id BIGINT, amount DOUBLE) WITH"
                    + " ('connector' = 'delta', 'table' = 'amounts');\n";
    private static final String INSERT =
            "INSERT INTO amounts SELECT event_id, amount FROM events_bronze;\n";

    private CliOutput sql(Path file) {
        return CliOutput.of("sql", "--file", file.toString(), "--base", base.toString(), "--quiet");
    }

    /** {@code sql --file --dry-run}'s output, once it exited 0. */
    private String dryRun(Path file) {
        CliOutput out =
                CliOutput.of(
                        "sql", "--file", file.toString(), "--base", base.toString(), "--dry-run");
        assertThat(out.code()).as(out.err()).isZero();
        return out.out();
    }

    @Test
    void aScriptsConstraintIsCommittedCheckedOnTheRowsAndEnforcedOnItsInsert() throws Exception {
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 500));
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
        Path sql = base.resolve("amounts.sql");

        // Step 1: the script adds a constraint to the table its INSERT creates, then writes
        // batch 1 (ids 0..499), which keeps it.
        Files.writeString(
                sql,
                TABLES
                        + "ALTER TABLE amounts ADD CONSTRAINT Early_Id CHECK (event_id < 700);\n"
                        + INSERT);
        CliOutput first = sql(sql);
        assertThat(first.code()).as(first.err()).isZero();
        DeltaTable amounts = warehouse.delta("amounts");
        assertThat(amounts.properties())
                .containsEntry("delta.constraints.early_id", "event_id < 700");
        assertThat(warehouse.count("amounts")).isEqualTo(500);
        // As Spark reads it: the metaData's configuration in the log, written by an ADD
        // CONSTRAINT commit.
        assertThat(
                        logEntryOf(
                                amounts.history(10).stream()
                                        .filter(h -> h.operation().equals("ADD CONSTRAINT"))
                                        .findFirst()
                                        .orElseThrow()
                                        .version()))
                .contains("\"delta.constraints.early_id\":\"event_id < 700\"")
                .contains("\"operation\":\"ADD CONSTRAINT\"");

        // Step 2: batch 2 (ids 500..999) breaks it from id 700 on. The script runs again: its
        // ADD is no change (the table has it), and its INSERT fails the batch before it commits.
        LocalEventFiles.writeBatch(base.resolve("events"), 2, EventGenerator.events(500, 500));
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
        long before = amounts.version();
        assertThat(dryRun(sql))
                .contains(
                        "would commit: statement 3 (ALTER TABLE amounts ADD CONSTRAINT Early_Id"
                                + " CHECK (event_...): nothing: Delta table 'amounts' has the"
                                + " constraint early_id already");
        CliOutput failed = sql(sql);
        assertThat(failed.code()).isNotZero();
        assertThat(failed.err())
                .contains(
                        "constraint 'early_id' (event_id < 700) of Delta table 'amounts' failed"
                                + " for the row {event_id=")
                .contains("the batch is not committed");
        assertThat(amounts.version()).isEqualTo(before);
        assertThat(warehouse.count("amounts")).isEqualTo(500);

        // The same name with another expression is refused before anything runs, as Delta
        // refuses a name the table has.
        Files.writeString(
                sql,
                TABLES
                        + "ALTER TABLE amounts ADD CONSTRAINT early_id CHECK (event_id < 800);\n"
                        + INSERT);
        CliOutput renamed = sql(sql);
        assertThat(renamed.code()).isNotZero();
        assertThat(renamed.err())
                .contains(
                        "already has the constraint 'early_id' CHECK (event_id < 700): drop it"
                                + " first (ALTER TABLE amounts DROP CONSTRAINT early_id)");
        assertThat(amounts.version()).isEqualTo(before);

        // Step 3: a constraint that a row of the table breaks is refused before anything runs,
        // naming it and the row; the table is as it was.
        Files.writeString(
                sql,
                TABLES + "ALTER TABLE amounts ADD CONSTRAINT big CHECK (amount > 50);\n" + INSERT);
        // A dry run builds the job and commits nothing: the constraint is not added.
        CliOutput dryRun =
                CliOutput.of(
                        "sql", "--file", sql.toString(), "--base", base.toString(), "--dry-run");
        assertThat(dryRun.code()).as(dryRun.err()).isZero();
        assertThat(dryRun.out())
                .contains(
                        "note: before the job, would commit: statement 3 (ALTER TABLE amounts ADD"
                                + " CONSTRAINT big CHECK (amount > 50)): ADD CONSTRAINT big CHECK"
                                + " (amount > 50) to Delta table 'amounts', once its rows are"
                                + " checked against it")
                .contains("nothing was run or written");
        assertThat(amounts.version()).isEqualTo(before);
        CliOutput refused = sql(sql);
        assertThat(refused.code()).isNotZero();
        assertThat(refused.err())
                .contains("amounts.sql:3: statement 3 (ALTER TABLE amounts ADD CONSTRAINT big")
                .contains("constraint 'big' (CHECK (amount > 50)) is not added to table 'amounts'")
                .contains("has a row that breaks it, {event_id=");
        assertThat(amounts.version()).isEqualTo(before);
        assertThat(amounts.properties()).doesNotContainKey("delta.constraints.big");

        // Step 4: the script drops early_id; batch 2 is read again and committed.
        Files.writeString(
                sql, TABLES + "ALTER TABLE amounts DROP CONSTRAINT IF EXISTS early_id;\n" + INSERT);
        assertThat(dryRun(sql))
                .contains(
                        "would commit: statement 3 (ALTER TABLE amounts DROP CONSTRAINT IF EXISTS"
                            + " early_id): DROP CONSTRAINT early_id from Delta table 'amounts'");
        CliOutput dropped = sql(sql);
        assertThat(dropped.code()).as(dropped.err()).isZero();
        assertThat(warehouse.count("amounts")).isEqualTo(1000);
        assertThat(amounts.properties()).doesNotContainKey("delta.constraints.early_id");
        assertThat(amounts.committedBatch(warehouse.owner("amounts").queryId())).hasValue(1);
        // table history marks both constraint commits.
        String history =
                SqlFileITCase.ok("table", "history", "amounts", "--base", base.toString()).out();
        assertThat(history.lines().filter(l -> l.contains("ADD CONSTRAINT")))
                .singleElement()
                .asString()
                .contains("constraint +early_id");
        assertThat(history.lines().filter(l -> l.contains("DROP CONSTRAINT")))
                .singleElement()
                .asString()
                .contains("constraint -early_id");
        assertThat(dryRun(sql))
                .contains(
                        "would commit: statement 3 (ALTER TABLE amounts DROP CONSTRAINT IF EXISTS"
                                + " early_id): nothing: Delta table 'amounts' has no constraint"
                                + " early_id");

        // Step 5: without IF EXISTS, a DROP of a constraint the table lacks is refused, as Delta
        // refuses it; and the statement is for Delta tables only.
        Files.writeString(sql, TABLES + "ALTER TABLE amounts DROP CONSTRAINT early_id;\n" + INSERT);
        CliOutput missing = sql(sql);
        assertThat(missing.code()).isNotZero();
        assertThat(missing.err())
                .contains("has no constraint 'early_id' (its constraints: [])")
                .contains("write DROP CONSTRAINT IF EXISTS early_id");
        assertThat(warehouse.count("amounts")).isEqualTo(1000);
    }

    /**
     * A sink's {@code CREATE TABLE} that declares a column {@code NOT NULL} has it so in its Delta
     * table from the table's first commit (the column's {@code nullable: false}, as Spark reads and
     * enforces it), and a batch that writes a null into it fails before it commits. The columns,
     * their {@code NOT NULL} included, are part of the query's checkpoint: a script that changes
     * one is refused until {@code reset}, which rebuilds the table with it.
     */
    @Test
    void aScriptsNotNullColumnIsNotNullInItsDeltaTable() throws Exception {
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 500));
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
        String bronze =
                "CREATE TEMPORARY TABLE events_bronze (event_id BIGINT, user_id INT, event_type"
                        + " STRING, event_ts TIMESTAMP_LTZ(3), amount DOUBLE) WITH ('connector' ="
                        + " 'delta', 'table' = 'events_bronze');\n";
        // A table of (event_id, note), where the note of one id is null; %2$s is the note's NOT
        // NULL or nothing, %3$d the id.
        String noted =
                "CREATE TEMPORARY TABLE %1$s (event_id BIGINT, note STRING%2$s) WITH ('connector' ="
                    + " 'delta', 'table' = '%1$s');\n"
                    + "INSERT INTO %1$s SELECT event_id, CASE WHEN event_id = %3$d THEN CAST(NULL"
                    + " AS STRING) ELSE event_type END FROM events_bronze;\n";
        Path notes = base.resolve("notes.sql");
        Files.writeString(notes, bronze + String.format(noted, "notes", " NOT NULL", 700));
        Path clean = base.resolve("clean.sql");
        Files.writeString(clean, bronze + String.format(noted, "clean", "", -1));

        // Step 1: notes is created with its note NOT NULL, and holds batch 1 (no null note).
        CliOutput first = sql(notes);
        assertThat(first.code()).as(first.err()).isZero();
        assertThat(warehouse.count("notes")).isEqualTo(500);
        DeltaTable table = warehouse.delta("notes");
        assertThat(table.rowType().getTypeAt(0).isNullable()).as("event_id nullable").isTrue();
        assertThat(table.rowType().getTypeAt(1).isNullable()).as("note nullable").isFalse();
        // As Spark reads it: the schema of the log's first metaData, the column nullable: false.
        assertThat(logEntryOf("notes", 0))
                .contains(
                        "{\\\"name\\\":\\\"note\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":false");
        assertThat(
                        SqlFileITCase.ok(
                                        "table", "constraint", "list", "notes", "--base", "" + base)
                                .out())
                .isEqualTo("constraint NOT NULL note\n");
        assertThat(sql(clean).code()).isZero();
        assertThat(warehouse.delta("clean").rowType().getTypeAt(1).isNullable()).isTrue();

        // Step 2: batch 2 holds id 700, whose note is null: the batch fails before it commits.
        LocalEventFiles.writeBatch(base.resolve("events"), 2, EventGenerator.events(500, 500));
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
        long before = table.version();
        CliOutput failed = sql(notes);
        assertThat(failed.code()).isNotZero();
        // In the project's words, Flink's advice to drop such rows silently left out; and at the
        // first restart, as Spark stops at the failure: every restart would meet the same row, so
        // no note of a restart is printed and Flink's restart strategy is not waited out.
        assertThat(failed.err())
                .contains(
                        "query 'notes' failed: a row has a null in column 'note', which the table")
                .contains("the batch failed before it committed")
                .contains("in task 'Source: events_bronze -> ")
                .contains(
                        "The run stopped the job at its first restart: a restart reads the same"
                                + " rows from the checkpoint and meets the same null.")
                .doesNotContain("the job restarts from its last checkpoint")
                .doesNotContain("Flink gave up")
                .doesNotContain("not-null-enforcer");
        assertThat(table.version()).isEqualTo(before);
        assertThat(warehouse.count("notes")).isEqualTo(500);

        // Step 3: clean's script now declares its note NOT NULL: refused, naming the change and
        // reset. Reset empties the table and keeps its columns; the next run makes the note NOT
        // NULL in one CHANGE COLUMN commit before the job, which a dry run lists and does not
        // make, and which the run after it does not repeat.
        Files.writeString(clean, bronze + String.format(noted, "clean", " NOT NULL", -1));
        long cleanVersion = warehouse.delta("clean").version();
        CliOutput changed = sql(clean);
        assertThat(changed.code()).isNotZero();
        assertThat(changed.err())
                .contains("added: note STRING NOT NULL; dropped: note STRING")
                .contains("Start over with 'reset clean'");
        assertThat(warehouse.delta("clean").version()).isEqualTo(cleanVersion);
        SqlFileITCase.ok("reset", "clean", "--base", base.toString());
        long emptied = warehouse.delta("clean").version();
        assertThat(dryRun(clean))
                .contains(
                        "note: before the job, would commit: table 'clean' (its column note is NOT"
                                + " NULL): SET NOT NULL on column note of Delta table 'clean', once"
                                + " its rows are checked for a null in it");
        assertThat(warehouse.delta("clean").version()).isEqualTo(emptied);
        CliOutput rebuilt = sql(clean);
        assertThat(rebuilt.code()).as(rebuilt.err()).isZero();
        assertThat(warehouse.count("clean")).isEqualTo(1000);
        assertThat(warehouse.delta("clean").rowType().getTypeAt(1).isNullable()).isFalse();
        assertThat(changeColumnCommits(warehouse.delta("clean"))).hasSize(1);
        assertThat(
                        SqlFileITCase.ok(
                                        "table", "constraint", "list", "clean", "--base", "" + base)
                                .out())
                .isEqualTo("constraint NOT NULL note\n");
        LocalEventFiles.writeBatch(base.resolve("events"), 3, EventGenerator.events(1000, 500));
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
        assertThat(dryRun(clean)).doesNotContain("would commit");
        assertThat(sql(clean).code()).isZero();
        assertThat(warehouse.count("clean")).isEqualTo(1500);
        assertThat(changeColumnCommits(warehouse.delta("clean"))).hasSize(1);
    }

    private static List<Long> changeColumnCommits(DeltaTable table) {
        return table.history(50).stream()
                .filter(h -> h.operation().equals("CHANGE COLUMN"))
                .map(HistoryEntry::version)
                .toList();
    }

    private String logEntryOf(String table, long version) throws Exception {
        return Files.readString(
                base.resolve(
                        "warehouse/"
                                + table
                                + "/_delta_log/"
                                + String.format("%020d", version)
                                + ".json"));
    }

    private String logEntryOf(long version) throws Exception {
        return logEntryOf("amounts", version);
    }
}
