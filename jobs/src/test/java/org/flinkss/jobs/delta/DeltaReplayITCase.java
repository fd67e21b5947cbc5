package org.flinkss.jobs.delta;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.jobs.recovery.BronzeKillRecoveryITCase;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.checkpoint.SkippedCommit;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * Issue 12: a restore point older than the table. The offset log keeps every batch's plan, so a run
 * restored from an older savepoint, or from none at all, reads the batches it replays exactly as
 * the first time; the table, which holds them for the query ({@code txn}), skips each whole, the
 * run reports them, and only then are new batches planned and committed. No row is written twice.
 */
class DeltaReplayITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    private RunOptions options() {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .maxFilesPerTrigger(2)
                .checkpointInterval(Duration.ofMillis(200))
                .out(new PrintStream(printed, true, StandardCharsets.UTF_8))
                .build();
    }

    private static void land(RunOptions options, int from, int to) {
        for (int file = from; file <= to; file++) {
            EventFiles.writeBatch(
                    options.events(), file, EventGenerator.events((file - 1) * 500L, 500));
        }
    }

    @Test
    void aRunWithoutAnySavepointReplaysTheRecordedBatchesWritingNothingThenPlansNewOnes()
            throws Exception {
        RunOptions options = options();
        Warehouse warehouse = new Warehouse(options.warehouse());
        BronzeQuery bronze = new BronzeQuery(options.events());
        land(options, 1, 5);
        QueryRunner.Result first = QueryRunner.run(bronze, options);
        assertThat(first.batches()).isEqualTo(3);
        DeltaTable table = warehouse.delta(BronzeQuery.TABLE);
        long versionAfterFirst = table.snapshot().version();

        // The restore points are gone (savepoints and retained checkpoints deleted by hand); the
        // offset log and the table stay.
        CheckpointLayout layout = options.checkpointOf(BronzeQuery.NAME);
        deleteTree(Storage.localFile(layout.savepoints(), "a test file").toPath());
        deleteTree(Storage.localFile(layout.checkpoints(), "a test file").toPath());
        land(options, 6, 6);
        printed.reset();

        QueryRunner.Result second = QueryRunner.run(bronze, options);

        assertThat(second.skippedCommits)
                .extracting(SkippedCommit::table, SkippedCommit::batchId)
                .contains(
                        tuple(BronzeQuery.TABLE, 0L),
                        tuple(BronzeQuery.TABLE, 1L),
                        tuple(BronzeQuery.TABLE, 2L));
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("batch 0 already committed to ")
                .contains("batch 2 already committed to ");
        // One new version: batch 3, the one new file.
        assertThat(table.committedBatch(queryId(layout))).hasValue(3L);
        assertThat(table.snapshot().version()).isEqualTo(versionAfterFirst + 1);
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .extracting(row -> row.get(0))
                .containsExactlyElementsOf(LongStream.range(0, 3000).boxed().toList());
        assertThat(BronzeKillRecoveryITCase.uncommittedFiles(warehouse))
                .as("data files of the replayed batches, never committed")
                .isEmpty();
    }

    @Test
    void aRunRestoredFromAnOlderSavepointSkipsTheBatchesTheTableAlreadyHolds() throws Exception {
        RunOptions options = options();
        Warehouse warehouse = new Warehouse(options.warehouse());
        BronzeQuery bronze = new BronzeQuery(options.events());
        CheckpointLayout layout = options.checkpointOf(BronzeQuery.NAME);
        land(options, 1, 2);
        QueryRunner.Result first = QueryRunner.run(bronze, options);
        assertThat(first.batches()).isEqualTo(1);
        Path older = base.resolve("older-savepoints");
        copyTree(Storage.localFile(layout.savepoints(), "a test file").toPath(), older);

        land(options, 3, 4);
        QueryRunner.Result second = QueryRunner.run(bronze, options);
        assertThat(second.batches()).isEqualTo(1);
        DeltaTable table = warehouse.delta(BronzeQuery.TABLE);
        long versionAfterSecond = table.snapshot().version();

        // The newest restore points deleted: the run restores the older savepoint, so it reads
        // batch 1 again, as it was planned.
        deleteTree(Storage.localFile(layout.savepoints(), "a test file").toPath());
        deleteTree(Storage.localFile(layout.checkpoints(), "a test file").toPath());
        copyTree(older, Storage.localFile(layout.savepoints(), "a test file").toPath());
        QueryRunner.Result third = QueryRunner.run(bronze, options);

        // Every table of the query (events_bronze, its quarantine, its skipped files) skipped it.
        assertThat(third.skippedCommits)
                .extracting(SkippedCommit::table, SkippedCommit::batchId)
                .contains(tuple(BronzeQuery.TABLE, 1L))
                .allSatisfy(t -> assertThat(t.toList().get(1)).isEqualTo(1L));
        assertThat(table.snapshot().version()).isEqualTo(versionAfterSecond);
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .extracting(row -> row.get(0))
                .containsExactlyElementsOf(LongStream.range(0, 2000).boxed().toList());
        assertThat(BronzeKillRecoveryITCase.uncommittedFiles(warehouse)).isEmpty();

        // And the next file is batch 2, as if nothing had happened.
        land(options, 5, 5);
        QueryRunner.Result fourth = QueryRunner.run(bronze, options);
        assertThat(fourth.skippedCommits).isEmpty();
        assertThat(table.committedBatch(queryId(layout))).hasValue(2L);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(2500);
    }

    /**
     * Periodic checkpoints inside a batch only stage data files: a reader polling the table while
     * long batches run (a checkpoint every 40 ms, batches of 100,000 rows that each take several
     * intervals) sees whole batches only, never part of one.
     */
    @Test
    void aReaderPollingTheTableDuringLongBatchesSeesWholeBatchesOnly() throws Exception {
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .maxFilesPerTrigger(1)
                        .checkpointInterval(Duration.ofMillis(40))
                        .out(new PrintStream(printed, true, StandardCharsets.UTF_8))
                        .build();
        int perBatch = 100_000;
        for (int file = 1; file <= 3; file++) {
            EventFiles.writeBatch(
                    options.events(),
                    file,
                    EventGenerator.events((file - 1L) * perBatch, perBatch));
        }
        Warehouse warehouse = new Warehouse(options.warehouse());
        java.util.Set<Long> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicBoolean running =
                new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicInteger reads =
                new java.util.concurrent.atomic.AtomicInteger();
        Thread reader =
                new Thread(
                        () -> {
                            while (running.get()) {
                                try {
                                    if (warehouse.exists(BronzeQuery.TABLE)) {
                                        seen.add(warehouse.count(BronzeQuery.TABLE));
                                        reads.incrementAndGet();
                                    }
                                } catch (RuntimeException e) {
                                    // created between exists and count: read again
                                }
                            }
                        },
                        "table-poller");
        reader.start();
        QueryRunner.Result run;
        try {
            run = QueryRunner.run(new BronzeQuery(options.events()), options);
        } finally {
            running.set(false);
            reader.join();
        }

        assertThat(run.batches()).isEqualTo(3);
        assertThat(run.progress)
                // The first batch (start-up included) spans several checkpoint intervals even on a
                // quiet machine, where later batches may take less than three.
                .as("a batch spans several checkpoint intervals")
                .anySatisfy(
                        p ->
                                assertThat(p.path("durationMs").path("triggerExecution").asLong())
                                        .isGreaterThan(160));
        assertThat(reads.get()).isGreaterThan(10);
        assertThat(seen).isSubsetOf(0L, 100_000L, 200_000L, 300_000L).contains(300_000L);
    }

    private static String queryId(CheckpointLayout layout) {
        return QueryIdentity.idIn(layout);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            List<Path> paths = all.sorted(Comparator.reverseOrder()).toList();
            for (Path p : paths) {
                Files.delete(p);
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
