package org.flinkss.course.queries;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventSources;
import org.flinkss.course.operators.LateEvents;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.operators.LateRowRouter;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31, a failover inside a batch: the course's win5, built by both APIs behind the late-row
 * router, must write after the failover what an uninterrupted run writes. A run's second batch
 * carries rows late for a window that fired in the first; a checkpoint is taken inside that batch,
 * after which an operator fails once, as the first late row reaches it. Flink restores no
 * operator's watermark: the restored batch is held (the splits left in the enumerator, and any a
 * reader got back from its state) until the restored watermark is in a checkpoint, so the late rows
 * go to {@code win5_late} again, and reopen no window.
 *
 * <p>This test passed before that hold too (3 of 3 runs with the failover): each reader reads a
 * whole file in one poll here, so the checkpoint finds the rest of the batch in the enumerator,
 * which sent each reader its watermark before any split, and the router is chained to its reader.
 * The hold's own tests are in the runtime ({@code MicroBatchEnumeratorTest}, {@code
 * MicroBatchReaderTest}). Flink SQL's own window aggregate keeps its progress in state
 * (FLINK-24501, FLINK-36663) and drops such rows whatever its watermark.
 */
class FailoverInsideABatchITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final Instant T0 = Instant.parse("2025-03-01T00:00:00Z");

    /** The user of the rows late for a window that fired in the first run. */
    private static final int LATE_USER = 99;

    @TempDir Path dir;

    /**
     * Fails once on the first late row it sees after a checkpoint taken inside the second run's
     * batch has completed; shared with the tasks, which run in this JVM.
     */
    static final class FailOnceInsideTheBatch extends RichMapFunction<Event, Event>
            implements CheckpointedFunction, CheckpointListener {
        private static final long serialVersionUID = 1L;
        static final AtomicInteger FAILURES = new AtomicInteger();
        static final AtomicBoolean INSIDE_COMPLETED = new AtomicBoolean();
        static final Set<Long> INSIDE = ConcurrentHashMap.newKeySet();

        /** This subtask has passed on a row of the second run's batch. */
        private transient boolean inTheBatch;

        /** This subtask took part in a checkpoint after a row of the second run's batch. */
        private transient boolean snapshottedInside;

        static void arm(int failures) {
            FAILURES.set(failures);
            INSIDE_COMPLETED.set(false);
            INSIDE.clear();
        }

        @Override
        public Event map(Event e) throws Exception {
            if (e.userId == LATE_USER) {
                // A checkpoint whose barrier has passed this subtask completes without it: waiting
                // here for it cannot block it.
                long deadline = System.currentTimeMillis() + 10_000;
                while (snapshottedInside
                        && !INSIDE_COMPLETED.get()
                        && System.currentTimeMillis() < deadline) {
                    Thread.sleep(10);
                }
                if (INSIDE_COMPLETED.get() && FAILURES.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    throw new IllegalStateException("boom: injected failure inside a batch");
                }
            } else if (e.eventTs.isAfter(T0.plus(Duration.ofMinutes(30)))) {
                inTheBatch = true;
                if (FAILURES.get() > 0) {
                    // Slow enough that periodic checkpoints fall inside the batch, before the late
                    // rows, which the readers read last; once restored, the readers read at full
                    // speed, as a real job does.
                    Thread.sleep(10);
                }
            }
            return e;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            if (inTheBatch) {
                INSIDE.add(context.getCheckpointId());
                snapshottedInside = true;
            }
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (INSIDE.contains(checkpointId)) {
                INSIDE_COMPLETED.set(true);
            }
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}
    }

    /**
     * The course's win5 (tumbling 5 minutes by event type, watermark 10 minutes) over the landing
     * files, built twice on one stream of on-time rows: by the Table API's builder into {@code
     * win5_table} and by the DataStream API's into {@code win5_stream}; the rows the late-row
     * router drops go to {@code win5_late}.
     */
    private static Query win5(Path events) {
        return new Query() {
            @Override
            public String name() {
                return "win5-failover";
            }

            @Override
            public void build(QueryContext context) {
                context.stateful("win5, both APIs");
                DataStream<Event> rows =
                        BronzeQuery.splitBad(
                                        EventSources.jsonFiles(
                                                context,
                                                "events",
                                                Storage.location(events.toFile()),
                                                QueryCatalog.WATERMARK_DELAY,
                                                false))
                                .map(new FailOnceInsideTheBatch())
                                .returns(Event.class)
                                .name("may-fail")
                                .uid("may-fail");
                WindowQuery table = WindowQuery.win5(Api.TABLE);
                WindowQuery stream = WindowQuery.win5(Api.DATASTREAM);
                LateRowRouter<Event> late =
                        LateEvents.router(
                                "window",
                                LateRowRouter.windowRule(
                                        Duration.ofMinutes(5).toMillis(),
                                        Duration.ofMinutes(5).toMillis()),
                                context.scope());
                SingleOutputStreamOperator<Event> onTime =
                        rows.process(late).name("drop-late-rows").uid("late-rows");
                context.toTable(
                        new WindowTableBuilder(table, context).windows(onTime),
                        EventTables.rows("win5_table", table.rowType()));
                context.toTable(
                        new WindowStreamBuilder(stream, context).windows(onTime),
                        EventTables.rows("win5_stream", stream.rowType()));
                context.toTable(
                        onTime.getSideOutput(late.lateRows()),
                        EventTables.late("win5_late", context.runId()));
            }
        };
    }

    private static RunOptions options(Path base) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .checkpointInterval(Duration.ofMillis(100))
                .flinkOption("restart-strategy.type", "exponential-delay")
                .flinkOption("restart-strategy.exponential-delay.initial-backoff", "100 ms")
                .flinkOption("restart-strategy.exponential-delay.max-backoff", "200 ms")
                .build();
    }

    private static List<Event> rows(
            long firstId, Instant from, int n, long everySeconds, int user) {
        List<Event> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(
                    new Event(firstId + i, user, "click", from.plusSeconds(everySeconds * i), 1.0));
        }
        return rows;
    }

    /**
     * Step 1 lands the first run's batch: 00:00 to 00:30, one row every 30 s; its watermark (00:20)
     * fires the windows up to 00:20. Step 2 lands the second run's batch: eight files, read by two
     * readers four each, in order; each reader's last file holds 40 rows late for the window
     * [00:00, 00:05), which fired in the first run.
     */
    private static void land(Path events, int run) {
        org.apache.flink.core.fs.Path folder = Storage.location(events.toFile());
        if (run == 1) {
            EventFiles.writeBatch(folder, 1, rows(0, T0, 61, 30, 1));
            return;
        }
        long id = 1000;
        Instant next = T0.plus(Duration.ofMinutes(30)).plusSeconds(30);
        for (int file = 0; file < 8; file++) {
            boolean late = file == 3 || file == 7;
            List<Event> rows =
                    late
                            ? rows(id, T0.plusSeconds(60), 30, 5, LATE_USER)
                            : rows(id, next, 40, 5, 1);
            if (!late) {
                next = next.plusSeconds(200);
            }
            id += 40;
            EventFiles.writeBatch(folder, 11 + file, rows);
        }
    }

    /** The three tables after the two runs; a late row without its run id. */
    private Map<String, List<List<Object>>> twoRuns(Path base, int failures) {
        RunOptions options = options(base);
        Path events = base.resolve("events");
        land(events, 1);
        FailOnceInsideTheBatch.arm(0);
        QueryRunner.run(win5(events), options);
        land(events, 2);
        FailOnceInsideTheBatch.arm(failures);
        QueryRunner.run(win5(events), options);
        Warehouse warehouse = new Warehouse(options.warehouse());
        Map<String, List<List<Object>>> tables = new TreeMap<>();
        tables.put("win5_table", warehouse.sortedValues("win5_table"));
        tables.put("win5_stream", warehouse.sortedValues("win5_stream"));
        tables.put(
                "win5_late",
                warehouse.sortedValues("win5_late").stream()
                        .map(r -> r.subList(0, r.size() - 1))
                        .toList());
        return tables;
    }

    @Test
    void aFailoverInsideABatchDropsTheLateRowsAnUninterruptedRunDrops() {
        // The expectation first: the window [00:00, 00:05) holds its 10 clicks of the first run,
        // once; the second run's 60 late rows go to win5_late.
        Map<String, List<List<Object>>> uninterrupted = twoRuns(dir.resolve("uninterrupted"), 0);
        for (String table : List.of("win5_table", "win5_stream")) {
            assertThat(uninterrupted.get(table))
                    .as(table)
                    .filteredOn(r -> r.get(0).equals(T0))
                    .containsExactly(List.of(T0, T0.plusSeconds(300), "click", 10L, 10.0));
        }
        assertThat(uninterrupted.get("win5_late")).hasSize(60);

        // Step 3: the same two runs, the second failing over inside its batch.
        Map<String, List<List<Object>>> failedOver = twoRuns(dir.resolve("failed-over"), 1);

        assertThat(FailOnceInsideTheBatch.FAILURES.get())
                .as("the failure was thrown after a checkpoint inside the batch")
                .isZero();
        assertThat(failedOver).isEqualTo(uninterrupted);
    }
}
