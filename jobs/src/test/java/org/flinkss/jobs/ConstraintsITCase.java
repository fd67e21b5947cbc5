package org.flinkss.jobs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code table constraint add|not-null|drop|list} through the command line on the table bronze
 * wrote, then the run that breaks one: the batch fails before it commits, naming the constraint,
 * the table and a row; the table and the checkpoint stay as they were, and once the constraint is
 * dropped the next run commits the batch. One MiniCluster for every step.
 */
class ConstraintsITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private CliOutput cli(String... args) {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--base";
        all[args.length + 1] = base.toString();
        return CliOutput.of(all);
    }

    @Test
    void aRowThatBreaksAConstraintFailsItsBatchAndLeavesTableAndCheckpointAsTheyWere() {
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 500));
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
        long afterBatch1 = warehouse.delta("events_bronze").version();

        // Step 1: constraints as Delta's SQL sets them; those the rows break are refused.
        CliOutput broken = cli("table", "constraint", "add", "events_bronze", "big", "amount > 50");
        assertThat(broken.code()).isNotZero();
        assertThat(broken.err())
                .contains("constraint 'big' (CHECK (amount > 50)) is not added to table")
                .contains("has a row that breaks it, {event_id=");
        assertThat(
                        cli(
                                        "table",
                                        "constraint",
                                        "add",
                                        "events_bronze",
                                        "early_id",
                                        "event_id < 700")
                                .out())
                .isEqualTo(
                        "table events_bronze: constraint early_id CHECK (event_id < 700) added as"
                                + " version "
                                + (afterBatch1 + 1)
                                + "\n");
        assertThat(cli("table", "constraint", "not-null", "events_bronze", "event_id").code())
                .isZero();
        CliOutput unknown = cli("table", "constraint", "drop", "events_bronze", "nope");
        assertThat(unknown.code()).isNotZero();
        assertThat(unknown.err()).contains("has no constraint 'nope'; its constraints: [early_id]");
        assertThat(cli("table", "constraint", "list", "events_bronze").out())
                .isEqualTo(
                        "constraint early_id CHECK (event_id < 700)\n"
                                + "constraint NOT NULL event_id\n");
        assertThat(cli("table", "show", "events_bronze", "--limit", "1").out())
                .endsWith(
                        "constraint early_id CHECK (event_id < 700)\n"
                                + "constraint NOT NULL event_id\n");

        // Step 2: batch 2 holds ids 500..999: ids from 700 on break early_id.
        LocalEventFiles.writeBatch(base.resolve("events"), 2, EventGenerator.events(500, 500));
        long constrained = warehouse.delta("events_bronze").version();
        CliOutput failed = cli("run", "bronze", "--quiet");
        assertThat(failed.code()).isNotZero();
        assertThat(failed.err())
                .contains(
                        "constraint 'early_id' (event_id < 700) of Delta table 'events_bronze'"
                                + " failed for the row {event_id=")
                .contains("the batch is not committed");
        assertThat(warehouse.delta("events_bronze").version()).isEqualTo(constrained);
        assertThat(warehouse.count("events_bronze")).isEqualTo(500);

        // Step 3: the constraint dropped, the next run reads batch 2 again and commits it (its
        // batch id is the one the failed run did not commit).
        assertThat(cli("table", "constraint", "drop", "events_bronze", "early_id").code()).isZero();
        SqlFileITCase.ok("run", "bronze", "--base", base.toString(), "--quiet");
        assertThat(warehouse.count("events_bronze")).isEqualTo(1000);
        assertThat(
                        warehouse
                                .delta("events_bronze")
                                .committedBatch(warehouse.owner("events_bronze").queryId()))
                .hasValue(1);
        assertThat(cli("table", "constraint", "list", "events_bronze").out())
                .isEqualTo("constraint NOT NULL event_id\n");

        // Step 4: complete mode does not check a table's CHECK constraints yet: a run that would
        // write such a table in complete mode is refused before anything runs, naming them. Its
        // NOT NULL columns are checked (NotNullCheck): with the CHECK dropped, the run goes on.
        assertThat(cli("run", "sliding", "--output-mode", "complete", "--quiet").code()).isZero();
        assertThat(
                        cli(
                                        "table",
                                        "constraint",
                                        "add",
                                        "events_sliding",
                                        "some_events",
                                        "events > 0")
                                .code())
                .isZero();
        long sliding = warehouse.delta("events_sliding").version();
        CliOutput complete = cli("run", "sliding", "--output-mode", "complete", "--quiet");
        assertThat(complete.code()).isNotZero();
        assertThat(complete.err())
                .contains(
                        "table 'events_sliding' has CHECK constraints (some_events), which"
                                + " complete mode does not check yet");
        assertThat(warehouse.delta("events_sliding").version()).isEqualTo(sliding);
        assertThat(cli("table", "constraint", "drop", "events_sliding", "some_events").code())
                .isZero();
        assertThat(cli("table", "constraint", "not-null", "events_sliding", "events").code())
                .isZero();
        CliOutput notNull = cli("run", "sliding", "--output-mode", "complete", "--quiet");
        assertThat(notNull.code()).as(notNull.err()).isZero();
        assertThat(cli("table", "constraint", "list", "events_sliding").out())
                .isEqualTo("constraint NOT NULL events\n");
    }
}
