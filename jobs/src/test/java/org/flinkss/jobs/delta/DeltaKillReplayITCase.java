package org.flinkss.jobs.delta;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.jobs.Main;
import org.flinkss.jobs.recovery.BronzeKillRecoveryITCase;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.checkpoint.SkippedCommit;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12's kill test: a bronze run in its own JVM is killed with {@code kill -9} after it has
 * committed a batch, and the newest retained checkpoint ({@code checkpoints/<job>/chk-N}) is
 * deleted, so the next run restores an older point (the previous run's savepoint) than the tables.
 * It reads the batches the tables hold again, as the offset log planned them; each of bronze's
 * tables skips each of those batches whole, the run says so, and the tables end up as an
 * uninterrupted run leaves them: no event twice.
 */
class DeltaKillReplayITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final int FILES = 8;
    private static final int EVENTS_PER_FILE = 500;
    private static final List<String> TABLES =
            List.of(BronzeQuery.TABLE, BronzeQuery.QUARANTINE, BronzeQuery.SKIPPED_FILES);

    @TempDir Path dir;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    private RunOptions options(Path base) {
        // One file per batch and a checkpoint every 300 ms: several committed batches per run.
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .maxFilesPerTrigger(1)
                .checkpointInterval(Duration.ofMillis(300))
                .printProgress(false)
                .out(new PrintStream(printed, true, StandardCharsets.UTF_8))
                .build();
    }

    @Test
    void afterAKillAndTheNewestCheckpointDeletedTheRerunSkipsCommittedBatchesInEveryTable()
            throws Exception {
        RunOptions killed = options(dir.resolve("killed"));
        RunOptions reference = options(dir.resolve("reference"));
        CheckpointLayout checkpoint = killed.checkpointOf(BronzeQuery.NAME);
        Warehouse warehouse = new Warehouse(killed.warehouse());

        // Step 1: two files (500 events and one bad line each), read by a run that ends with a
        // savepoint: batches 0 and 1.
        land(killed, 1, 2);
        QueryRunner.Result first = QueryRunner.run(new BronzeQuery(killed.events()), killed);
        assertThat(first.batches()).isEqualTo(2);

        // Step 2: six more files; a run in a child JVM, killed with kill -9 once it has committed
        // a batch of its own.
        land(killed, 3, FILES);
        BronzeKillRecoveryITCase.copyTree(
                Storage.localFile(killed.events(), "a test file").toPath(),
                Storage.localFile(reference.events(), "a test file").toPath());
        int committed = ProgressTracker.history(checkpoint).size();
        String[] run = {
            "run",
            BronzeQuery.NAME,
            "--base",
            killed.base().toString(),
            "--max-files-per-trigger",
            "1",
            "--parallelism",
            "2",
            "--checkpoint-interval",
            "300ms",
            "--quiet"
        };
        ChildJvm.Launcher launcher =
                ChildJvm.of(Main.class)
                        .workDir(dir.resolve("child"))
                        .tmpDir(dir.resolve("child-tmp"))
                        .output(dir.resolve("child.log"));
        String queryId = QueryIdentity.idIn(checkpoint);
        try (ChildJvm child = launcher.start(run)) {
            assertThat(child.awaitNewBatch(checkpoint, committed, Duration.ofSeconds(90)))
                    .as(
                            "the child committed a batch before it exited; its output:%n%s",
                            child.outputText())
                    .isTrue();
            // The progress log's line and the tables' commits both follow the checkpoint's
            // completion, in different processes' threads: the kill waits for each table itself
            // to hold the child's first batch.
            long childsFirstBatch = first.batches();
            assertThat(
                            child.await(
                                    "batch " + childsFirstBatch + " in each of " + TABLES,
                                    () -> holdAll(warehouse, queryId, childsFirstBatch),
                                    Duration.ofSeconds(60)))
                    .as(
                            "each of %s held a batch of the child before it exited; its"
                                    + " output:%n%s",
                            TABLES, child.outputText())
                    .isTrue();
            assertThat(child.kill9()).isEqualTo(ChildJvm.KILLED_EXIT_CODE);
        }
        Map<String, Long> held = new TreeMap<>();
        for (String table : TABLES) {
            held.put(table, warehouse.delta(table).committedBatch(queryId).orElse(-1));
        }
        assertThat(held.get(BronzeQuery.TABLE))
                .as("batches the killed run committed")
                .isGreaterThan(1);

        // Step 3: the newest restore point is the killed job's retained checkpoint: delete it.
        // Flink retains one, but discards the one it subsumes in the background, so a process
        // killed meanwhile leaves that one too: it goes as well, and the run restores the first
        // run's savepoint, older than the tables.
        RestorePoints restorePoints = new RestorePoints(checkpoint);
        List<?> before = restorePoints.all();
        Path newest =
                Storage.localFile(restorePoints.newest().orElseThrow(), "a test file").toPath();
        assertThat(newest.getFileName().toString()).startsWith("chk-");
        List<Path> deleted = new ArrayList<>();
        while (newest.startsWith(
                Storage.localFile(checkpoint.checkpoints(), "a test file").toPath())) {
            DeltaReplayITCase.deleteTree(newest);
            deleted.add(newest);
            newest =
                    Storage.localFile(restorePoints.newest().orElseThrow(), "a test file").toPath();
        }
        System.out.printf(
                "DeltaKillReplayITCase: tables held batches %s; restore points %s; deleted %s;"
                        + " the rerun restores %s%n",
                held, before, deleted, newest);
        assertThat(
                        newest.startsWith(
                                Storage.localFile(checkpoint.savepoints(), "a test file").toPath()))
                .as("restore points %s, deleted %s", before, deleted)
                .isTrue();
        printed.reset();

        // Step 4: the rerun restores an older point, replays the batches the tables hold, and
        // commits the rest.
        QueryRunner.Result rerun = QueryRunner.run(new BronzeQuery(killed.events()), killed);

        Map<String, List<Long>> skipped =
                rerun.skippedCommits.stream()
                        .collect(
                                Collectors.groupingBy(
                                        SkippedCommit::table,
                                        TreeMap::new,
                                        Collectors.mapping(
                                                SkippedCommit::batchId, Collectors.toList())));
        assertThat(skipped)
                .as("tables that skipped batches; the rerun printed:%n%s", printed)
                .containsOnlyKeys(TABLES);
        long firstReplayed = skipped.get(BronzeQuery.TABLE).get(0);
        for (String table : TABLES) {
            // Each table skipped every replayed batch it held, and only those.
            assertThat(skipped.get(table))
                    .as("batches %s skipped (it held up to %d)", table, held.get(table))
                    .containsExactlyElementsOf(
                            LongStream.rangeClosed(firstReplayed, held.get(table))
                                    .boxed()
                                    .toList());
        }
        String out = printed.toString(StandardCharsets.UTF_8);
        for (long batch : new TreeSet<>(skipped.get(BronzeQuery.TABLE))) {
            assertThat(out)
                    .contains("batch " + batch + " already committed to " + BronzeQuery.TABLE);
        }

        // Step 5: the expectation: one uninterrupted run over the same files.
        QueryRunner.run(new BronzeQuery(reference.events()), reference);
        Warehouse expected = new Warehouse(reference.warehouse());

        List<List<Object>> rows = warehouse.sortedValues(BronzeQuery.TABLE);
        // Each file's bad line is also a row of nulls, as Spark's PERMISSIVE reader makes it.
        assertThat(rows.stream().filter(row -> row.get(0) == null)).hasSize(FILES);
        List<Long> ids =
                rows.stream()
                        .filter(row -> row.get(0) != null)
                        .map(row -> (Long) row.get(0))
                        .toList();
        assertThat(ids)
                .as("event ids, once each")
                .containsExactlyElementsOf(
                        LongStream.range(0, (long) FILES * EVENTS_PER_FILE).boxed().toList());
        assertThat(rows).containsExactlyElementsOf(expected.sortedValues(BronzeQuery.TABLE));
        assertThat(badLines(warehouse)).hasSize(FILES).isEqualTo(badLines(expected));
        assertThat(warehouse.count(BronzeQuery.SKIPPED_FILES)).isZero();
        assertThat(BronzeKillRecoveryITCase.uncommittedFiles(warehouse)).isEmpty();
    }

    /** Whether each of bronze's tables holds batch {@code batch} of the query, or a later one. */
    private static boolean holdAll(Warehouse warehouse, String queryId, long batch) {
        return TABLES.stream()
                .allMatch(t -> warehouse.delta(t).committedBatch(queryId).orElse(-1) >= batch);
    }

    /** Each landed file: 500 events and one line that is not JSON. */
    private static void land(RunOptions options, int from, int to) throws Exception {
        for (int file = from; file <= to; file++) {
            Path part =
                    Storage.localFile(options.events(), "a test file")
                            .toPath()
                            .resolve("batch_" + file)
                            .resolve("part-00000-" + file + "-c000.json");
            Files.createDirectories(part.getParent());
            List<String> lines = new ArrayList<>();
            EventGenerator.events((file - 1L) * EVENTS_PER_FILE, EVENTS_PER_FILE)
                    .forEach(e -> lines.add(EventJson.toJson(e)));
            lines.add("not json, file " + file);
            Files.write(part, lines);
        }
    }

    /** The quarantine's raw lines, sorted (its file column names each base's own folder). */
    private static List<String> badLines(Warehouse warehouse) {
        return warehouse.sortedValues(BronzeQuery.QUARANTINE).stream()
                .map(row -> String.valueOf(row.get(2)))
                .sorted()
                .toList();
    }
}
