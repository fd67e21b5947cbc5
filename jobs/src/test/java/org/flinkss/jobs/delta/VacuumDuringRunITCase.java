package org.flinkss.jobs.delta;

import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventSources;
import org.flinkss.course.queries.BronzeITCase;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.tables.EventTables;
import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.File;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code table vacuum --retain 1ms --force} during a run (issue 38 point 8) never deletes the data
 * files the run staged and has not committed yet: the run is held mid-batch, between staging and
 * commit, while vacuum runs; then it commits, and the table is readable with every row.
 */
class VacuumDuringRunITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final String TABLE = "held_events";

    /** The event at which the run is held: its writers have staged files by then. */
    private static final long HELD_AT = 700;

    private static volatile CountDownLatch reached;
    private static volatile CountDownLatch released;

    @TempDir java.nio.file.Path base;

    /** Bronze into {@link #TABLE}, held at one event until the test releases it. */
    private static final class HeldQuery implements Query {
        private final org.apache.flink.core.fs.Path events;

        HeldQuery(org.apache.flink.core.fs.Path events) {
            this.events = events;
        }

        @Override
        public String name() {
            return "held";
        }

        @Override
        public void build(QueryContext context) {
            context.toTable(
                    BronzeQuery.splitBad(
                                    EventSources.jsonFiles(context, "events", events, null, false))
                            .filter(new HoldAt(HELD_AT)),
                    EventTables.events(TABLE));
        }
    }

    /** Passes every event; at {@code id} it waits for the test (the batch cannot commit). */
    private static final class HoldAt implements FilterFunction<Event> {
        private final long id;

        HoldAt(long id) {
            this.id = id;
        }

        @Override
        public boolean filter(Event e) throws Exception {
            if (e.eventId != null && e.eventId == id) {
                reached.countDown();
                assertThat(released.await(2, TimeUnit.MINUTES)).isTrue();
            }
            return true;
        }
    }

    @Test
    void aForcedVacuumDuringARunKeepsItsStagedFilesAndTheRunCommitsEveryRow() throws Exception {
        reached = new CountDownLatch(1);
        released = new CountDownLatch(1);
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        Warehouse warehouse = new Warehouse(options.warehouse());
        List<List<Object>> expectedIds =
                LongStream.range(0, 1000).mapToObj(id -> List.<Object>of(id)).toList();

        // Step 1: the run starts and is held mid-batch, its data files staged.
        CompletableFuture<QueryRunner.Result> run =
                CompletableFuture.supplyAsync(
                        () -> QueryRunner.run(new HeldQuery(options.events()), options));
        try {
            assertThat(reached.await(2, TimeUnit.MINUTES)).as("the run reached event 700").isTrue();
            File folder = Storage.localFile(warehouse.tableLocation(TABLE), "a test folder");
            Thread.sleep(200); // older than the 1 ms retention
            String[] staged = folder.list((dir, name) -> name.endsWith(".parquet"));
            assertThat(staged).as("files staged by the held run").isNotEmpty();

            // Step 2: vacuum with the shortest retention, forced, while the run is live.
            CliOutput vacuum =
                    CliOutput.of(
                            "table",
                            "vacuum",
                            TABLE,
                            "--retain",
                            "1ms",
                            "--force",
                            "--base",
                            base.toString());
            assertThat(vacuum.code()).as(vacuum.out() + vacuum.err()).isZero();
            assertThat(vacuum.out())
                    .contains("deleted 0 unreferenced data file(s)")
                    .contains("kept " + staged.length + " unreferenced data file(s) staged by")
                    .contains("query 'held'")
                    .contains("is live (heartbeat");
            assertThat(folder.list((dir, name) -> name.endsWith(".parquet")))
                    .containsExactlyInAnyOrder(staged);
        } finally {
            released.countDown();
        }

        // Step 3: the run commits what it staged: every row readable, each once.
        run.get(3, TimeUnit.MINUTES);
        assertThat(warehouse.count(TABLE)).isEqualTo(1000);
        assertThat(
                        warehouse.sortedValues(TABLE).stream()
                                .map(row -> List.<Object>of(row.get(0)))
                                .toList())
                .isEqualTo(expectedIds);
    }
}
