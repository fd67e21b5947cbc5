package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.jobs.Main;
import org.flinkss.jobs.TestDiary;
import org.flinkss.runtime.TestPauses;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 36: {@code run bronze --trigger real-time}, the landing folder to Delta tables. Files
 * landed while the run goes on reach the table within a checkpoint or two, one Delta commit per
 * checkpoint with the query's {@code txn}; a run killed with {@code kill -9} while files arrive, or
 * between its Parquet files and their commit, and run again leaves each event once: the table an
 * available-now run makes of the same files.
 */
class RealTimeBronzeITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final int EVENTS_PER_FILE = 500;
    private static final long SEED = Long.getLong("flinkss.killSeed", 36360L);

    /** Only catches a hang: a loaded 2-core machine takes a minute or more to start a run. */
    private static final Duration HANG = Duration.ofMinutes(4);

    @TempDir Path dir;

    @RegisterExtension final TestDiary diary = new TestDiary();

    @Test
    void filesLandedDuringARunReachTheTableAndAKilledRunRerunsEachEventOnce() throws Exception {
        landedAndKilled();
    }

    private void landedAndKilled() throws Exception {
        RunOptions killed = options(dir.resolve("real-time"));
        Warehouse warehouse = new Warehouse(killed.warehouse());
        CheckpointLayout checkpoint = killed.checkpointOf(BronzeQuery.NAME);
        ChildJvm.Launcher launcher = launcher("child");

        // Step 1: four files landed before the run, events 0-1999.
        for (int file = 1; file <= 4; file++) {
            land(killed, file);
        }

        // Step 2: a real-time run, a checkpoint (a commit) every second, until it is killed.
        try (ChildJvm run = launcher.output(log("run-1")).start(bronze(killed, null))) {
            awaitRows(run, warehouse, 2000);
            diary.note("run 1: the 4 files landed before it are in the table");

            // Step 3: a file landed while the run goes on is in the table at the latest with the
            // second checkpoint that completes after it landed (and one more that may complete
            // before this test looks).
            long before = newestCheckpoint(checkpoint);
            land(killed, 5);
            long landedAt = System.nanoTime();
            awaitRows(run, warehouse, 2500);
            long after = newestCheckpoint(checkpoint);
            diary.note(
                    String.format(
                            "run 1: file 5 in the table %.2f s after it landed; newest checkpoint"
                                    + " %d when it landed, %d when its rows were seen",
                            (System.nanoTime() - landedAt) / 1e9, before, after));
            assertThat(after - before)
                    .as("checkpoints completed between landing file 5 and seeing its rows")
                    .isBetween(1L, 3L);

            // Step 4: file 6, then file 7 and a kill -9 a seeded 0-1.5 s later: the run may be
            // reading file 7, have staged its Parquet files, or have committed them.
            land(killed, 6);
            awaitRows(run, warehouse, 3000);
            land(killed, 7);
            int extra = new Random(SEED).nextInt(1500);
            Thread.sleep(extra);
            assertThat(run.kill9()).isEqualTo(ChildJvm.KILLED_EXIT_CODE);
            diary.note(
                    "run 1: kill -9 "
                            + extra
                            + " ms after file 7 landed, "
                            + warehouse.count(BronzeQuery.TABLE)
                            + " rows in the table");
        }

        // Step 5: file 8 lands; the rerun restores the last checkpoint, reads on, and stops by
        // itself after 60 s with a savepoint, which commits.
        land(killed, 8);
        try (ChildJvm rerun =
                launcher.output(log("run-2")).start(bronze(killed, Duration.ofSeconds(60)))) {
            awaitRows(rerun, warehouse, 4000);
            diary.note("run 2: all 8 files in the table");
            assertThat(rerun.waitFor(HANG)).as(rerun.outputText()).isZero();
            diary.note("run 2: stopped by itself after --run-for");
        }

        // Step 6: an available-now run finds nothing new: 0 rows, the table unchanged.
        List<List<Object>> afterRecovery = warehouse.sortedValues(BronzeQuery.TABLE);
        QueryRunner.Result rerun = QueryRunner.run(new BronzeQuery(killed.events()), killed);
        assertThat(rerun.numInputRows()).isZero();
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .containsExactlyElementsOf(afterRecovery);

        // Step 7: each event once, as one available-now run over the same 8 files makes it.
        assertThat(afterRecovery).containsExactlyElementsOf(availableNowTable(8));
        assertThat(BronzeKillRecoveryITCase.uncommittedFiles(warehouse))
                .as("data files of the killed run that no table version references")
                .isEmpty();

        // Step 8: one Delta commit per batch, each with the query's txn: the batches of the
        // progress log are versions of the table, their ids growing and never repeating.
        String queryId = QueryIdentity.idIn(checkpoint);
        List<Long> committed =
                warehouse.delta(BronzeQuery.TABLE).history(Integer.MAX_VALUE).stream()
                        .filter(v -> queryId.equals(v.appId()))
                        .sorted((a, b) -> Long.compare(a.version(), b.version()))
                        .map(HistoryEntry::batchId)
                        .collect(Collectors.toList());
        List<Long> progress =
                ProgressTracker.history(checkpoint).stream()
                        .map((ObjectNode p) -> p.path("batchId").asLong())
                        .collect(Collectors.toList());
        diary.note("txn batch ids of the table's versions: " + committed);
        diary.note("batch ids of the progress log: " + progress);
        assertThat(committed).isNotEmpty().isSorted().doesNotHaveDuplicates();
        assertThat(progress).isSorted().doesNotHaveDuplicates();
        assertThat(committed).containsAll(progress);
    }

    @Test
    void aRunKilledBetweenItsParquetFilesAndTheirCommitCommitsThemOnceWhenRunAgain()
            throws Exception {
        killedBeforeCommit();
    }

    private void killedBeforeCommit() throws Exception {
        RunOptions halted = options(dir.resolve("halted"));
        Warehouse warehouse = new Warehouse(halted.warehouse());
        for (int file = 1; file <= 4; file++) {
            land(halted, file);
        }

        // Step 1: the run stages the events as Parquet files, a checkpoint completes, and the
        // process halts, as kill -9 ends it, just before the first commit of events_bronze.
        ChildJvm.Launcher launcher =
                launcher("halted-child")
                        .jvmOption(
                                "-D"
                                        + TestPauses.HALT_PROPERTY
                                        + "=delta-before-commit:"
                                        + BronzeQuery.TABLE);
        try (ChildJvm run = launcher.output(log("halted-run")).start(bronze(halted, null))) {
            assertThat(run.waitFor(HANG)).isEqualTo(TestPauses.HALT_EXIT_CODE);
        }
        List<String> staged = BronzeKillRecoveryITCase.uncommittedFiles(warehouse);
        diary.note("halted before the commit: staged data files " + staged);
        assertThat(staged).as("Parquet files written but not committed").isNotEmpty();
        assertThat(warehouse.count(BronzeQuery.TABLE)).isZero();

        // Step 2: run again, real-time, for 40 s: the restored checkpoint's batch is committed,
        // and nothing is read twice.
        try (ChildJvm rerun =
                launcher("rerun-child")
                        .output(log("rerun"))
                        .start(bronze(halted, Duration.ofSeconds(40)))) {
            awaitRows(rerun, warehouse, 2000);
            assertThat(rerun.waitFor(HANG)).as(rerun.outputText()).isZero();
        }
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .containsExactlyElementsOf(availableNowTable(4));
        assertThat(BronzeKillRecoveryITCase.uncommittedFiles(warehouse)).isEmpty();
    }

    /** {@code run bronze --trigger real-time=1s}, and {@code --run-for} if given. */
    private static String[] bronze(RunOptions options, Duration runFor) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "run",
                                BronzeQuery.NAME,
                                "--base",
                                options.base().toString(),
                                "--trigger",
                                "real-time=1s",
                                "--parallelism",
                                "2",
                                "--quiet"));
        if (runFor != null) {
            args.addAll(List.of("--run-for", runFor.toSeconds() + "s"));
        }
        return args.toArray(String[]::new);
    }

    private static RunOptions options(Path base) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .build();
    }

    private ChildJvm.Launcher launcher(String name) {
        return ChildJvm.of(Main.class)
                .workDir(dir.resolve(name))
                .tmpDir(dir.resolve(name + "-tmp"));
    }

    private Path log(String name) {
        Path output = dir.resolve("logs").resolve(name + ".log");
        diary.output(output);
        return output;
    }

    /** File {@code n}: {@code batch_<n>/}, events {@code (n-1)*500 .. n*500-1}. */
    private void land(RunOptions options, int n) {
        EventFiles.writeBatch(
                options.events(),
                n,
                EventGenerator.events((long) (n - 1) * EVENTS_PER_FILE, EVENTS_PER_FILE));
        diary.note("landed file " + n);
    }

    /** The bronze table one available-now run makes of files 1..{@code files}. */
    private List<List<Object>> availableNowTable(int files) throws Exception {
        RunOptions reference = options(dir.resolve("available-now-" + files));
        for (int file = 1; file <= files; file++) {
            land(reference, file);
        }
        QueryRunner.run(new BronzeQuery(reference.events()), reference);
        List<List<Object>> rows =
                new Warehouse(reference.warehouse()).sortedValues("events_bronze");
        assertThat(rows).hasSize(files * EVENTS_PER_FILE);
        return rows;
    }

    /** Waits until the table holds {@code rows} rows while the child runs; fails on more. */
    private void awaitRows(ChildJvm child, Warehouse warehouse, long rows)
            throws InterruptedException {
        assertThat(
                        child.await(
                                rows + " rows in " + BronzeQuery.TABLE,
                                () -> {
                                    long count =
                                            warehouse.exists(BronzeQuery.TABLE)
                                                    ? warehouse.count(BronzeQuery.TABLE)
                                                    : 0;
                                    assertThat(count)
                                            .as("rows in the table")
                                            .isLessThanOrEqualTo(rows);
                                    if (count < rows) {
                                        pause(200); // a snapshot read costs: not every 20 ms
                                    }
                                    return count == rows;
                                },
                                HANG))
                .as("the run is still running; its output:%n%s", child.outputText())
                .isTrue();
    }

    /**
     * The id of the newest checkpoint of the query that completed (its {@code _metadata}). Read
     * while the run goes on, which deletes the checkpoints a newer one subsumes: the folders are
     * listed, not walked, since a walk fails on a folder deleted under it (a CI run at load 12).
     */
    private static long newestCheckpoint(CheckpointLayout checkpoint) throws IOException {
        Path root = Path.of(checkpoint.checkpoints().toUri());
        if (!Files.exists(root)) {
            return 0;
        }
        long newest = 0;
        for (Path job : list(root)) {
            for (Path chk : list(job)) {
                String name = chk.getFileName().toString();
                if (name.startsWith("chk-") && Files.exists(chk.resolve("_metadata"))) {
                    newest = Math.max(newest, Long.parseLong(name.substring("chk-".length())));
                }
            }
        }
        return newest;
    }

    /** A folder's entries; none if it is gone or not a folder. */
    private static List<Path> list(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(folder)) {
            return entries.collect(Collectors.toList());
        } catch (NoSuchFileException e) {
            return List.of();
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
