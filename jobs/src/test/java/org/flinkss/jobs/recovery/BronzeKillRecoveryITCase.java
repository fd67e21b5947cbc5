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
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rule 2 with real processes: a bronze run in its own JVM, killed with {@code kill -9} in the
 * middle of a multi-batch backlog, and rerun, leaves the table an uninterrupted run leaves.
 *
 * <p>The kill moments come from a seeded {@link Random}: the seed is printed, and {@code
 * -Dflinkss.killSeed=N} replays a failing schedule.
 */
public class BronzeKillRecoveryITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final int FILES = 40;
    private static final int EVENTS_PER_FILE = 500;
    private static final long EVENTS = (long) FILES * EVENTS_PER_FILE;
    private static final int KILLS = 3;

    /** A kill comes up to this long after the run's first committed batch. */
    private static final int MAX_EXTRA_MILLIS = 1500;

    private static final long SEED = Long.getLong("flinkss.killSeed", 20250301L);

    @TempDir Path dir;

    @RegisterExtension final TestDiary diary = new TestDiary();

    private static RunOptions options(Path base) {
        // Two files per batch and a checkpoint (the commit of a batch) every 300 ms: 20 batches,
        // several seconds of them, so a kill lands between, inside or at the end of batches.
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .maxFilesPerTrigger(2)
                .checkpointInterval(Duration.ofMillis(300))
                .printProgress(false)
                .build();
    }

    @Test
    void killedRunsRerunToTheSameTableWithNoLossAndNoDuplicates() throws Exception {
        scenario();
    }

    private void scenario() throws Exception {
        RunOptions killed = options(dir.resolve("killed"));
        RunOptions reference = options(dir.resolve("reference"));
        CheckpointLayout checkpoint = killed.checkpointOf(BronzeQuery.NAME);
        Random random = new Random(SEED);
        diary.note("kill schedule seed " + SEED + " (replay with -Dflinkss.killSeed=" + SEED + ")");

        // Step 1: land 40 files of 500 events, ids 0..19999; the reference run reads a copy of the
        // same files.
        for (int file = 0; file < FILES; file++) {
            EventFiles.writeBatch(
                    killed.events(),
                    file + 1,
                    EventGenerator.events((long) file * EVENTS_PER_FILE, EVENTS_PER_FILE));
        }
        copyTree(
                Storage.localFile(killed.events(), "a test file").toPath(),
                Storage.localFile(reference.events(), "a test file").toPath());

        // Step 2: the expectation: what one uninterrupted run makes of those files.
        QueryRunner.Result uninterrupted =
                QueryRunner.run(new BronzeQuery(reference.events()), reference);
        Warehouse referenceWarehouse = new Warehouse(reference.warehouse());
        List<List<Object>> expected = referenceWarehouse.sortedValues(BronzeQuery.TABLE);
        assertThat(eventIds(expected))
                .containsExactlyElementsOf(
                        LongStream.range(0, EVENTS).boxed().collect(Collectors.toList()));
        diary.note(
                "uninterrupted in-process run: "
                        + uninterrupted.batches()
                        + " batches, "
                        + uninterrupted.numInputRows()
                        + " rows");

        // Step 3: run bronze in a child JVM; kill -9 it at a seeded moment after a batch of its
        // own has committed; rerun; after KILLS kills, the next run must finish by itself with 0.
        String[] run = {
            "run",
            BronzeQuery.NAME,
            "--base",
            killed.base().toString(),
            "--max-files-per-trigger",
            "2",
            "--parallelism",
            "2",
            "--checkpoint-interval",
            "300ms",
            "--quiet"
        };
        ChildJvm.Launcher launcher =
                ChildJvm.of(Main.class)
                        .workDir(dir.resolve("child"))
                        .tmpDir(dir.resolve("child-tmp"));
        int kills =
                ChildJvm.runKilledAfterCommits(
                        launcher,
                        run,
                        checkpoint,
                        KILLS,
                        random,
                        MAX_EXTRA_MILLIS,
                        Duration.ofSeconds(90),
                        dir.resolve("logs"),
                        diary.outputs(),
                        diary::note,
                        () ->
                                new Warehouse(killed.warehouse()).count(BronzeQuery.TABLE)
                                        + " rows visible in the table");
        assertThat(kills).as("kills that hit a running process").isPositive();

        Warehouse warehouse = new Warehouse(killed.warehouse());
        List<List<Object>> afterRecovery = warehouse.sortedValues(BronzeQuery.TABLE);
        List<ObjectNode> history = ProgressTracker.history(checkpoint);

        // Step 4: one more run finds nothing new: 0 rows, no new batch id, the table unchanged.
        QueryRunner.Result rerun = QueryRunner.run(new BronzeQuery(killed.events()), killed);
        diary.note(
                "rerun after recovery (in-process): "
                        + rerun.batches()
                        + " batches, "
                        + rerun.numInputRows()
                        + " rows");
        assertThat(rerun.batches()).isZero();
        assertThat(rerun.lastProgress.path("numInputRows").asLong()).isZero();
        assertThat(ProgressTracker.history(checkpoint)).hasSameSizeAs(history);
        assertThat(warehouse.sortedValues(BronzeQuery.TABLE))
                .containsExactlyElementsOf(afterRecovery);

        // Step 5: every event exactly once, the same rows as the uninterrupted run, no leftovers of
        // the kills.
        List<Long> ids = eventIds(afterRecovery);
        assertThat(duplicates(ids)).as("event ids written more than once (id -> count)").isEmpty();
        assertThat(missing(ids)).as("event ids lost").isEmpty();
        assertThat(afterRecovery).containsExactlyElementsOf(expected);
        assertThat(quarantined(warehouse)).isEqualTo(quarantined(referenceWarehouse));
        assertThat(uncommittedFiles(warehouse))
                .as("data files of the killed runs that no table version references")
                .isEmpty();

        // Batch ids grow and never repeat. Rows that a killed run read but did not commit are
        // read again by the rerun, so numInputRows may add up to more than 20000: not asserted.
        List<Long> batchIds =
                history.stream().map(p -> p.path("batchId").asLong()).collect(Collectors.toList());
        diary.note(
                "progress log: batch ids "
                        + batchIds
                        + ", numInputRows sum "
                        + history.stream().mapToLong(p -> p.path("numInputRows").asLong()).sum());
        assertThat(batchIds).isNotEmpty().isSorted().doesNotHaveDuplicates();
    }

    private static List<Long> eventIds(List<List<Object>> rows) {
        return rows.stream().map(row -> (Long) row.get(0)).collect(Collectors.toList());
    }

    private static Map<Long, Long> duplicates(List<Long> ids) {
        Map<Long, Long> counts =
                ids.stream()
                        .collect(
                                Collectors.groupingBy(
                                        id -> id, TreeMap::new, Collectors.counting()));
        counts.values().removeIf(count -> count == 1);
        return counts;
    }

    /**
     * Lost ids as ranges, e.g. {@code [1000..1999]}, so that a whole lost batch reads as one entry.
     */
    private static List<String> missing(List<Long> ids) {
        boolean[] seen = new boolean[(int) EVENTS];
        ids.stream().filter(id -> id >= 0 && id < EVENTS).forEach(id -> seen[id.intValue()] = true);
        List<String> ranges = new ArrayList<>();
        for (int id = 0; id < EVENTS; id++) {
            if (!seen[id]) {
                int first = id;
                while (id + 1 < EVENTS && !seen[id + 1]) {
                    id++;
                }
                ranges.add("[" + first + ".." + id + "]");
            }
        }
        return ranges;
    }

    private static long quarantined(Warehouse warehouse) {
        return warehouse.exists(BronzeQuery.QUARANTINE)
                ? warehouse.count(BronzeQuery.QUARANTINE)
                : 0;
    }

    /** Data files in the table's folder that its current version does not reference. */
    public static List<String> uncommittedFiles(Warehouse warehouse) throws IOException {
        List<String> referenced =
                warehouse.snapshot(BronzeQuery.TABLE).files().stream()
                        .map(f -> f.name())
                        .collect(Collectors.toList());
        try (Stream<Path> files =
                Files.list(
                        Storage.localFile(warehouse.tableLocation(BronzeQuery.TABLE), "a test file")
                                .toPath())) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> !n.startsWith("_") && !n.startsWith("."))
                    .filter(n -> !referenced.contains(n))
                    .collect(Collectors.toList());
        }
    }

    public static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            paths.forEach(
                    source -> {
                        Path target = to.resolve(from.relativize(source).toString());
                        try {
                            if (Files.isDirectory(source)) {
                                Files.createDirectories(target);
                            } else {
                                Files.copy(source, target);
                            }
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        }
    }
}
