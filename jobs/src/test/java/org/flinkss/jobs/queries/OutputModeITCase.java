package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.testing.Expected;
import org.flinkss.jobs.Main;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.ops.QueryReset;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.course.testing.Expected.MINUTE;
import static org.flinkss.jobs.queries.WindowITCase.DELAY;
import static org.flinkss.jobs.queries.WindowITCase.LATE;

/**
 * Topic 11.02's output modes, run by run: append (elsewhere), update and complete, and what is
 * refused.
 */
class OutputModeITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private static RunOptions options(Path dir, OutputMode mode) {
        return RunOptions.builder()
                .base(Storage.location(dir.toFile()))
                .parallelism(2)
                .printProgress(false)
                .outputMode(mode)
                .build();
    }

    private static QueryRunner.Result run(QueryCatalog query, Api api, RunOptions options) {
        QueryRunner.run(
                new BronzeQuery(options.events()),
                options(
                        Storage.localFile(options.base(), "a test file").toPath(),
                        OutputMode.APPEND));
        return QueryRunner.run(query.create(options, api), options);
    }

    private static final long NO_WATERMARK = Long.MAX_VALUE;

    @ParameterizedTest
    @EnumSource(Api.class)
    void updateModeMergesPartialWindowsIntoDeltaThatLaterRunsOverwrite(Api api) throws Exception {
        RunOptions options = options(base, OutputMode.UPDATE);
        Warehouse warehouse = new Warehouse(options.warehouse());
        List<Event> first = EventGenerator.events(0, 1000);

        // Step 1: batches 1 and 2: every window so far, the open ones with partial counts.
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        QueryRunner.Result run1 = run(QueryCatalog.WIN5, api, options);
        List<List<Object>> afterRun1 = warehouse.sortedValues("events_5min");
        assertThat(afterRun1)
                .containsExactlyElementsOf(
                        Expected.windows(first, 5 * MINUTE, 5 * MINUTE, false, NO_WATERMARK));
        // About one row per changed window and batch, not one per event (a periodic checkpoint
        // inside
        // the batch may write a window on both sides of it).
        assertThat(run1.lastProgress.path("sink").path("numOutputRows").asLong())
                .isBetween((long) afterRun1.size(), 1000L / 2);
        long closedByRun1 =
                Expected.windows(
                                first,
                                5 * MINUTE,
                                5 * MINUTE,
                                false,
                                Expected.maxEventTime(first) - DELAY)
                        .size();
        assertThat(afterRun1.size()).isGreaterThan((int) closedByRun1);

        // Step 2: the late event (dropped, as in append mode) and batch 4: the open windows grow in
        // place.
        EventFiles.writeBatch(options.events(), 3, List.of(LATE));
        EventFiles.writeBatch(options.events(), 4, EventGenerator.events(1000, 500));
        QueryRunner.Result run2 = run(QueryCatalog.WIN5, api, options);
        List<Event> all = EventGenerator.events(0, 1500);
        List<List<Object>> afterRun2 = warehouse.sortedValues("events_5min");
        assertThat(afterRun2)
                .containsExactlyElementsOf(
                        Expected.windows(all, 5 * MINUTE, 5 * MINUTE, false, NO_WATERMARK));
        List<List<Object>> overwritten =
                afterRun1.stream().filter(row -> !afterRun2.contains(row)).toList();
        assertThat(overwritten)
                .as("partial windows of run 1 overwritten by run 2")
                .isNotEmpty()
                .allSatisfy(
                        row ->
                                assertThat(((Instant) row.get(1)).toEpochMilli())
                                        .isGreaterThan(Expected.maxEventTime(first) - DELAY));
        assertThat(new Warehouse(options.warehouse()).count("events_5min_late")).isEqualTo(1);
        // Only the windows batch 4 touched were written, not the whole result; the closed ones
        // stayed as they were.
        long changed = afterRun2.stream().filter(row -> !afterRun1.contains(row)).count();
        assertThat(run2.lastProgress.path("sink").path("numOutputRows").asLong())
                .isBetween(changed, (long) afterRun2.size() / 2);
        // Each batch one MERGE commit; the SQL database was never written.
        assertThat(warehouse.existing("events_5min").history(Integer.MAX_VALUE))
                .filteredOn(e -> e.batchId() >= 0)
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.operation()).isEqualTo("MERGE"));
        assertThat(Files.exists(base.resolve("warehouse").resolve("warehouse.db"))).isFalse();

        // Step 3: the SQL path (--jdbc-url) on this checkpoint is refused before any data moves,
        // naming the Delta MERGE the checkpoint was made with and the way out.
        RunOptions sql =
                RunOptions.builder()
                        .base(options.base())
                        .parallelism(2)
                        .printProgress(false)
                        .outputMode(OutputMode.UPDATE)
                        .jdbcUrl("jdbc:sqlite:" + base.resolve("other.db"))
                        .build();
        assertThatThrownBy(() -> QueryRunner.run(QueryCatalog.WIN5.create(sql, api), sql))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("MERGE INTO events_5min (Delta)")
                .hasMessageContaining("reset win5");
        assertThat(warehouse.sortedValues("events_5min")).isEqualTo(afterRun2);
    }

    /**
     * Spark drops a late row from each of its windows that has ended by the watermark and keeps it
     * in its open ones, in update mode as in append mode (issue 13 point 2): a row whose first
     * sliding window has ended counts in its second only, in both APIs.
     */
    @ParameterizedTest
    @EnumSource(Api.class)
    void updateModeAddsARowLateForItsFirstSlidingWindowToItsOpenOneOnly(Api api) throws Exception {
        RunOptions options = options(base, OutputMode.UPDATE);
        List<Event> first = EventGenerator.events(0, 1000);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        run(QueryCatalog.SLIDING, api, options);

        // Spark's watermark after run 1, and a row in a window that ended by it, [open - 5 min,
        // open + 5 min), and in one still open, [open, open + 10 min).
        long watermark = Expected.maxEventTime(first) - DELAY;
        long open = Math.floorDiv(watermark, 5 * MINUTE) * 5 * MINUTE - 5 * MINUTE;
        Event partlyLate = new Event(77777L, 3, "view", Instant.ofEpochMilli(open + 1000), 2.5);
        assertThat(open + 5 * MINUTE).isLessThanOrEqualTo(watermark);
        assertThat(open + 10 * MINUTE).isGreaterThan(watermark);
        EventFiles.writeBatch(options.events(), 3, List.of(partlyLate));
        run(QueryCatalog.SLIDING, api, options);

        List<Event> all = new ArrayList<>(first);
        all.add(partlyLate);
        List<List<Object>> expected =
                new ArrayList<>(
                        Expected.windows(all, 10 * MINUTE, 5 * MINUTE, false, NO_WATERMARK));
        List<List<Object>> before =
                Expected.windows(first, 10 * MINUTE, 5 * MINUTE, false, NO_WATERMARK);
        Instant endedStart = Instant.ofEpochMilli(open - 5 * MINUTE);
        expected.removeIf(row -> row.get(0).equals(endedStart) && "view".equals(row.get(2)));
        before.stream()
                .filter(row -> row.get(0).equals(endedStart) && "view".equals(row.get(2)))
                .forEach(expected::add);
        assertThat(sortedRows(new Warehouse(options.warehouse()).sortedValues("events_sliding")))
                .containsExactlyElementsOf(sortedRows(expected));
        assertThat(new Warehouse(options.warehouse()).count("events_sliding_late")).isEqualTo(1);
    }

    private static List<List<Object>> sortedRows(List<List<Object>> rows) {
        return rows.stream().sorted(Comparator.comparing(Object::toString)).toList();
    }

    @ParameterizedTest
    @EnumSource(Api.class)
    void completeModeReplacesTheTableWithEveryWindowAndDropsNothing(Api api) {
        RunOptions options = options(base, OutputMode.COMPLETE);
        Warehouse warehouse = new Warehouse(options.warehouse());

        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(500, 500));
        run(QueryCatalog.SLIDING, api, options);
        assertThat(warehouse.sortedValues("events_sliding"))
                .containsExactlyElementsOf(
                        Expected.windows(
                                EventGenerator.events(0, 1000),
                                10 * MINUTE,
                                5 * MINUTE,
                                false,
                                NO_WATERMARK));

        // Complete mode keeps all state: the late event still counts; there is no late table.
        EventFiles.writeBatch(options.events(), 3, List.of(LATE));
        EventFiles.writeBatch(options.events(), 4, EventGenerator.events(1000, 500));
        run(QueryCatalog.SLIDING, api, options);
        List<Event> all = new ArrayList<>(EventGenerator.events(0, 1500));
        all.add(LATE);
        assertThat(warehouse.sortedValues("events_sliding"))
                .containsExactlyElementsOf(
                        Expected.windows(all, 10 * MINUTE, 5 * MINUTE, false, NO_WATERMARK));
        assertThat(warehouse.exists("events_sliding_late")).isFalse();
        assertThat(warehouse.snapshot("events_sliding").files()).hasSize(1);
    }

    @Test
    void completeModeSessionsDeleteTheRowsOfMergedSessions() {
        RunOptions options = options(base, OutputMode.COMPLETE);
        // Two sessions of user 7, 3 minutes apart, then an event between them merges them into one.
        Event a = new Event(1L, 7, "view", Instant.parse("2025-03-01T00:00:00Z"), 1.0);
        Event b = new Event(2L, 7, "view", Instant.parse("2025-03-01T00:03:00Z"), 2.0);
        Event c = new Event(3L, 7, "buy", Instant.parse("2025-03-01T00:01:30Z"), 4.0);
        EventFiles.writeBatch(options.events(), 1, List.of(a, b));
        run(QueryCatalog.SESSIONS, Api.DATASTREAM, options);
        Warehouse warehouse = new Warehouse(options.warehouse());
        assertThat(warehouse.sortedValues("events_sessions"))
                .containsExactlyElementsOf(
                        Expected.sessions(List.of(a, b), 2 * MINUTE, NO_WATERMARK))
                .hasSize(2);

        EventFiles.writeBatch(options.events(), 2, List.of(c));
        run(QueryCatalog.SESSIONS, Api.DATASTREAM, options);
        assertThat(warehouse.sortedValues("events_sessions"))
                .containsExactly(
                        List.of(
                                Instant.parse("2025-03-01T00:00:00Z"),
                                Instant.parse("2025-03-01T00:05:00Z"),
                                7,
                                3L,
                                7.0));
    }

    @Test
    void readersNeverSeeAHalfWrittenCompleteTable() throws Exception {
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .outputMode(OutputMode.COMPLETE)
                        .maxFilesPerTrigger(1)
                        .build();
        Warehouse warehouse = new Warehouse(options.warehouse());
        for (int batch = 1; batch <= 4; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
        }
        // Bronze in four commits, so that win5 reads it in (at least) four batches.
        QueryRunner.run(
                new BronzeQuery(options.events()),
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .maxFilesPerTrigger(1)
                        .build());

        // A reader reads the table over and over while the query commits four batches.
        AtomicBoolean done = new AtomicBoolean();
        ConcurrentLinkedQueue<Long> eventsSeen = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        Thread reader =
                new Thread(
                        () -> {
                            while (!done.get()) {
                                try {
                                    if (warehouse.exists("events_5min")) {
                                        eventsSeen.add(
                                                warehouse.sortedValues("events_5min").stream()
                                                        .mapToLong(r -> (Long) r.get(3))
                                                        .sum());
                                    }
                                } catch (Throwable t) {
                                    errors.add(t);
                                }
                            }
                        });
        reader.start();
        QueryRunner.Result result;
        try {
            result = QueryRunner.run(QueryCatalog.WIN5.create(options, Api.DATASTREAM), options);
        } finally {
            done.set(true);
            reader.join();
        }
        assertThat(result.batches()).isGreaterThanOrEqualTo(4);
        assertThat(errors).isEmpty();
        // Every read saw a whole result, empty before the first commit, never going back.
        List<Long> seen = new ArrayList<>(eventsSeen);
        assertThat(seen)
                .isNotEmpty()
                .isSorted()
                .allSatisfy(n -> assertThat(n).isBetween(0L, 2000L));
        assertThat(warehouse.sortedValues("events_5min"))
                .containsExactlyElementsOf(
                        Expected.windows(
                                EventGenerator.events(0, 2000),
                                5 * MINUTE,
                                5 * MINUTE,
                                false,
                                NO_WATERMARK));
        // Each batch replaced the whole result in one Delta commit: the current version has one
        // file, every version that added one removed the one before, and the superseded results
        // stay readable by version (time travel) until a vacuum deletes them.
        DeltaTable delta = warehouse.delta("events_5min");
        assertThat(delta.snapshot().files()).hasSize(1);
        List<HistoryEntry> history = delta.history(1000);
        List<HistoryEntry> results = history.stream().filter(h -> h.filesAdded() > 0).toList();
        assertThat(results).hasSizeGreaterThanOrEqualTo(2);
        assertThat(results.subList(0, results.size() - 1))
                .allSatisfy(h -> assertThat(h.filesRemoved()).isEqualTo(1));
        long first = results.get(results.size() - 1).version();
        assertThat(delta.snapshotAt(first).files()).hasSize(1);
        assertThat(delta.vacuum(Duration.ZERO, true, false).deleted()).hasSize(results.size() - 1);
        try (Stream<Path> files =
                Files.list(
                        Storage.localFile(warehouse.tableLocation("events_5min"), "a test file")
                                .toPath())) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith("_")))
                    .hasSize(1);
        }
    }

    @Test
    void modesThatMakeNoSenseAreRefusedWithTheReason() {
        RunOptions update = options(base, OutputMode.UPDATE);
        RunOptions complete = options(base, OutputMode.COMPLETE);
        assertThatThrownBy(() -> QueryCatalog.BRONZE.create(complete, Api.DATASTREAM))
                .hasMessageContaining("complete output mode needs a streaming aggregation");
        assertThatThrownBy(() -> QueryCatalog.BRONZE.create(update, Api.DATASTREAM))
                .hasMessageContaining("events_bronze, takes appends only");
        assertThatThrownBy(() -> QueryCatalog.DEDUP.create(complete, Api.DATASTREAM))
                .hasMessageContaining("needs a streaming aggregation");
        assertThatThrownBy(() -> QueryCatalog.VIEW_THEN_BUY.create(update, Api.DATASTREAM))
                .hasMessageContaining(
                        "Join between two streaming DataFrames/Datasets is not supported in Update"
                                + " output mode");
        assertThatThrownBy(() -> QueryCatalog.SESSIONS.create(update, Api.DATASTREAM))
                .hasMessageContaining("Spark refuses update mode for session windows");
        assertThatThrownBy(() -> QueryCatalog.SESSIONS.create(complete, Api.TABLE))
                .hasMessageContaining("--api datastream");
        assertThatThrownBy(() -> QueryCatalog.LATEST.create(complete, Api.DATASTREAM))
                .hasMessageContaining("needs a streaming aggregation");
        assertThat(QueryCatalog.LATEST.create(update, Api.DATASTREAM).name()).isEqualTo("latest");
        assertThatThrownBy(() -> OutputMode.parse("upsert"))
                .hasMessageContaining("use append, update or complete");
        assertThat(
                        Main.execute(
                                "run",
                                "pipeline",
                                "--base",
                                base.toString(),
                                "--output-mode",
                                "complete"))
                .isNotZero();
    }

    @Test
    void changingTheOutputModeOfACheckpointIsRefusedUntilAReset() throws Exception {
        RunOptions append = options(base, OutputMode.APPEND);
        RunOptions complete = options(base, OutputMode.COMPLETE);
        EventFiles.writeBatch(append.events(), 1, EventGenerator.events(0, 500));
        run(QueryCatalog.WIN5, Api.DATASTREAM, append);
        Warehouse warehouse = new Warehouse(append.warehouse());
        long appended = warehouse.count("events_5min");

        assertThatThrownBy(() -> run(QueryCatalog.WIN5, Api.DATASTREAM, complete))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("output mode complete")
                .hasMessageContaining("reset");
        assertThat(warehouse.count("events_5min")).isEqualTo(appended);

        QueryReset.reset(
                Storage.location(base.toFile()),
                warehouse,
                append.database(),
                QueryCatalog.WIN5.queryName());
        run(QueryCatalog.WIN5, Api.DATASTREAM, complete);
        assertThat(warehouse.sortedValues("events_5min"))
                .containsExactlyElementsOf(
                        Expected.windows(
                                EventGenerator.events(0, 500),
                                5 * MINUTE,
                                5 * MINUTE,
                                false,
                                NO_WATERMARK));
    }
}
