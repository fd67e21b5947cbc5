package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.DedupQuery;
import org.flinkss.course.queries.LatestQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.jobs.Main;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.TestPauses;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.ops.QueryReset;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 14, point 17: a base folder (landing folder, warehouse, checkpoints) can be moved or
 * copied. Every path under the base that a checkpoint keeps (the identity's sources and sinks, the
 * landed files in the offset log and in Flink's state, the staged data files of the tables, the SQL
 * database's file) is read relative to where the base is now, so a run in the new place goes on
 * exactly where the old one stopped, and a copy's runs read and write the copy only.
 */
class MovedBaseITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final List<String> QUERIES = List.of("bronze", "win5", "dedup", "latest");

    @TempDir Path dir;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    /**
     * State of one byte or more goes to files, not into {@code _metadata}: the savepoints then name
     * files, and the test shows they restore after a move.
     */
    private RunOptions options(Path base) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .printProgress(false)
                .flinkOption("execution.checkpointing.data-inline-threshold", "1b")
                .out(new PrintStream(printed, true, StandardCharsets.UTF_8))
                .build();
    }

    private static List<Query> queries(RunOptions options) {
        return List.of(
                new BronzeQuery(options.events()),
                WindowQuery.win5(Api.DATASTREAM),
                DedupQuery.dedup(Api.DATASTREAM),
                new LatestQuery(options.database()));
    }

    /** One run of each query, in the pipeline's order; the runs' results by query. */
    private Map<String, QueryRunner.Result> runAll(Path base) {
        RunOptions options = options(base);
        Map<String, QueryRunner.Result> results = new TreeMap<>();
        for (Query query : queries(options)) {
            results.put(query.name(), QueryRunner.run(query, options));
        }
        return results;
    }

    private static void land(Path base, int batch, long start) {
        EventFiles.writeBatch(
                RunOptions.builder().base(Storage.location(base.toFile())).build().events(),
                batch,
                EventGenerator.events(start, 500));
    }

    /** The uninterrupted run at one place: batch 1, a run of each query, batch 2, a run of each. */
    private Map<String, List<List<Object>>> reference() throws Exception {
        Path base = dir.resolve("reference");
        land(base, 1, 0);
        runAll(base);
        land(base, 2, 500);
        runAll(base);
        return tables(base);
    }

    @Test
    void aMovedBaseGoesOnWhereItStoppedAndEqualsAnUninterruptedRun() throws Exception {
        Map<String, List<List<Object>>> expected = reference();

        // Step 1: batch 1 and a run of bronze, win5, dedup and latest at the first place.
        Path before = dir.resolve("before");
        land(before, 1, 0);
        runAll(before);
        CheckpointLayout win5Before = options(before).checkpointOf("win5");
        assertThat(
                        Files.readString(
                                Storage.localFile(win5Before.metadata(), "a test file").toPath()))
                .as("the identity names the table it reads relative to the base")
                .contains("DeltaSource[${base}/warehouse/events_bronze/]")
                .doesNotContain(before.toString());
        assertThat(
                        Files.readString(
                                Storage.localFile(
                                                options(before).checkpointOf("bronze").metadata(),
                                                "a test file")
                                        .toPath()))
                .contains("FileStreamSource[${base}/events/*.json]")
                .doesNotContain(before.toString());
        try (Stream<Path> files =
                Files.walk(Storage.localFile(win5Before.savepoints(), "a test file").toPath())) {
            assertThat(files.filter(Files::isRegularFile).count())
                    .as("the savepoint keeps its state in files beside _metadata")
                    .isGreaterThan(1);
        }

        Map<String, Integer> batchesBefore = new TreeMap<>();
        for (String query : QUERIES) {
            batchesBefore.put(
                    query, ProgressTracker.history(options(before).checkpointOf(query)).size());
        }

        // Step 2: the base is moved elsewhere (mv), and 500 more events land in the new place.
        Path after = dir.resolve("elsewhere/after");
        Files.createDirectories(after.getParent());
        Files.move(before, after);
        land(after, 2, 500);
        printed.reset();

        // Step 3: each query goes on: the new file is its one new batch.
        Map<String, QueryRunner.Result> second = runAll(after);

        assertThat(before).as("nothing was written at the old place").doesNotExist();
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .as("every run restored its savepoint, which names its files relative to itself")
                .doesNotContain("was taken before its base folder was moved");
        QueryRunner.Result bronze = second.get("bronze");
        assertThat(bronze.numInputRows()).as("only the new file").isEqualTo(500);
        assertThat(bronze.batches()).isEqualTo(1);
        for (String query : QUERIES) {
            List<ObjectNode> history = ProgressTracker.history(options(after).checkpointOf(query));
            int known = batchesBefore.get(query);
            List<ObjectNode> added = history.subList(known, history.size());
            assertThat(added).as("%s: batches of the run after the move", query).isNotEmpty();
            assertThat(added.get(0).path("batchId").asLong())
                    .as("%s: batch ids go on", query)
                    .isEqualTo(history.get(known - 1).path("batchId").asLong() + 1);
            assertThat(added.stream().mapToLong(p -> p.path("numInputRows").asLong()).sum())
                    .as("%s: the new events only", query)
                    .isEqualTo(500);
        }
        assertThat(tables(after)).isEqualTo(expected);
    }

    @Test
    void aCopiedBaseGoesOnIndependentlyAndNeverChangesTheOriginal() throws Exception {
        Map<String, List<List<Object>>> expected = reference();

        // Step 1: batch 1 and a run of each query in the original.
        Path original = dir.resolve("original");
        land(original, 1, 0);
        runAll(original);

        // Step 2: cp -a, then the copy lands batch 2 and runs every query.
        Path copy = dir.resolve("copy");
        copyBase(original, copy);
        Map<Path, String> untouched = fingerprint(original);
        land(copy, 2, 500);
        Map<String, QueryRunner.Result> copyRuns = runAll(copy);

        assertThat(copyRuns.get("bronze").numInputRows()).isEqualTo(500);
        assertThat(fingerprint(original))
                .as("the original's files, tables and checkpoints, byte for byte")
                .isEqualTo(untouched);
        assertThat(tables(copy)).isEqualTo(expected);

        // Step 3: the original goes on with batches of its own; the copy is not affected.
        Map<Path, String> copyAfter = fingerprint(copy);
        land(original, 2, 2000);
        Map<String, QueryRunner.Result> originalRuns = runAll(original);

        assertThat(originalRuns.get("bronze").numInputRows()).isEqualTo(500);
        assertThat(ids(original, "events_bronze"))
                .containsExactlyElementsOf(
                        LongStream.concat(LongStream.range(0, 500), LongStream.range(2000, 2500))
                                .boxed()
                                .toList());
        assertThat(fingerprint(copy)).isEqualTo(copyAfter);
    }

    @Test
    void aCopySharingTheOriginalsWarehouseIsRefusedAndAMovedOneTakesItsTables() throws Exception {
        // Step 1: a base whose tables live in a warehouse outside it (--warehouse).
        Path warehouse = dir.resolve("shared-warehouse");
        Path original = dir.resolve("original");
        land(original, 1, 0);
        QueryRunner.run(
                new BronzeQuery(options(original).events()), withWarehouse(original, warehouse));

        // Step 2: a copy of the base on the same warehouse would write the original's tables.
        Path copy = dir.resolve("copy");
        copyBase(original, copy);
        land(copy, 2, 500);
        Map<Path, String> tablesBefore = fingerprint(warehouse);
        assertThatThrownBy(
                        () ->
                                QueryRunner.run(
                                        new BronzeQuery(options(copy).events()),
                                        withWarehouse(copy, warehouse)))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("table 'events_bronze'")
                .hasMessageContaining("of checkpoint " + original.resolve("_cp/bronze"))
                .hasMessageContaining("of checkpoint " + copy.resolve("_cp/bronze"))
                .hasMessageContaining("is a copy of that checkpoint")
                .hasMessageContaining("Give each its own --warehouse");
        assertThat(fingerprint(warehouse)).as("nothing written").isEqualTo(tablesBefore);
        // Nor may a reset in the copy empty the original's table.
        assertThatThrownBy(
                        () ->
                                QueryReset.reset(
                                        Storage.location(copy.toFile()),
                                        new Warehouse(Storage.location(warehouse.toFile())),
                                        options(copy).database(),
                                        QueryCatalog.BRONZE.queryName()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("table 'events_bronze'")
                .hasMessageContaining("would empty that base's table. Nothing was deleted.");
        assertThat(fingerprint(warehouse)).as("nothing emptied").isEqualTo(tablesBefore);
        assertThat(
                        Storage.localFile(
                                        options(copy).checkpointOf(BronzeQuery.NAME).metadata(),
                                        "a test file")
                                .toPath())
                .exists();

        // Step 3: moved instead (the original is gone), the base goes on writing its tables.
        Path moved = dir.resolve("moved");
        Files.move(original, moved);
        land(moved, 2, 500);
        QueryRunner.Result run =
                QueryRunner.run(
                        new BronzeQuery(options(moved).events()), withWarehouse(moved, warehouse));

        assertThat(run.numInputRows()).isEqualTo(500);
        assertThat(
                        new Warehouse(Storage.location(warehouse.toFile()))
                                .sortedValues(BronzeQuery.TABLE).stream()
                                        .map(row -> (Long) row.get(0))
                                        .toList())
                .containsExactlyElementsOf(LongStream.range(0, 1000).boxed().toList());
        assertThat(
                        new Warehouse(Storage.location(warehouse.toFile()))
                                .owner(BronzeQuery.TABLE)
                                .checkpoint())
                .as("the table's writer is the moved checkpoint now")
                .isEqualTo("../moved/_cp/bronze");
    }

    /**
     * A run killed after a commit leaves retained checkpoints ({@code chk-N}) newer than the
     * savepoint it started from. Their keyed state (RocksDB's incremental files, shared between
     * checkpoints) is named by absolute paths at the old place. After a move the run passes over
     * them, restores the savepoint (self-contained), reads the batches committed since as the
     * offset log planned them, and every table skips them: the tables equal an uninterrupted run's.
     */
    @Test
    void afterAKillAndAMoveTheRunRestoresTheSavepointAndSkipsWhatWasCommitted() throws Exception {
        Map<String, List<List<Object>>> expected = killedScenario(dir.resolve("reference"), false);

        Path before = dir.resolve("before");
        killedScenario(before, true);

        // Step 3: the base is moved; the next run there says which checkpoint it passes over.
        CheckpointLayout checkpoint = oneFileABatch(before).checkpointOf("win5");
        long committedBefore = ProgressTracker.history(checkpoint).size();
        Path after = dir.resolve("elsewhere/after");
        Files.createDirectories(after.getParent());
        Files.move(before, after);
        printed.reset();
        QueryRunner.Result rerun =
                QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), oneFileABatch(after));

        String output = printed.toString(StandardCharsets.UTF_8);
        assertThat(output)
                .contains("was taken before its base folder was moved or copied here")
                .contains(before.resolve("_cp/win5/checkpoints").toString())
                .contains("Restoring from " + after.resolve("_cp/win5/savepoints"));
        assertThat(rerun.skippedCommits)
                .as("the batches the killed run committed, read again and skipped")
                .isNotEmpty();
        assertThat(before).doesNotExist();
        Warehouse warehouse = new Warehouse(oneFileABatch(after).warehouse());
        assertThat(warehouse.sortedValues("events_5min")).isEqualTo(expected.get("events_5min"));
        assertThat(warehouse.sortedValues("events_5min_late"))
                .isEqualTo(expected.get("events_5min_late"));
        List<Long> batchIds =
                ProgressTracker.history(oneFileABatch(after).checkpointOf("win5")).stream()
                        .map(p -> p.path("batchId").asLong())
                        .toList();
        assertThat(batchIds)
                .doesNotHaveDuplicates()
                .isSorted()
                .hasSizeGreaterThan((int) committedBefore);
        assertThat(BronzeKillRecoveryITCase.uncommittedFiles(warehouse)).isEmpty();
    }

    /** Parallelism 1, one file a batch: batches planned the same way in every base. */
    private RunOptions oneFileABatch(Path base) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(1)
                .maxFilesPerTrigger(1)
                .checkpointInterval(Duration.ofMillis(300))
                .printProgress(false)
                .flinkOption("execution.checkpointing.data-inline-threshold", "1b")
                .out(new PrintStream(printed, true, StandardCharsets.UTF_8))
                .build();
    }

    /**
     * Step 1: batch 1, bronze and a clean run of win5 (it ends with a savepoint). Step 2: 8 more
     * files into bronze, 8 batches, and win5 on them: uninterrupted, or in a child JVM killed with
     * SIGKILL once it has committed a batch of its own. Returns win5's tables.
     */
    private Map<String, List<List<Object>>> killedScenario(Path base, boolean kill)
            throws Exception {
        RunOptions options = oneFileABatch(base);
        land(base, 1, 0);
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);
        for (int file = 2; file <= 9; file++) {
            land(base, file, (file - 1) * 500L);
        }
        QueryRunner.run(new BronzeQuery(options.events()), options);
        if (!kill) {
            QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);
            Warehouse warehouse = new Warehouse(options.warehouse());
            return Map.of(
                    "events_5min", warehouse.sortedValues("events_5min"),
                    "events_5min_late", warehouse.sortedValues("events_5min_late"));
        }
        CheckpointLayout checkpoint = options.checkpointOf("win5");
        int before = ProgressTracker.history(checkpoint).size();
        Path work = dir.resolve("child");
        Path conf = Files.createDirectories(work.resolve("flink-conf"));
        Files.writeString(
                conf.resolve("config.yaml"),
                Files.readString(Path.of("..", "flink-conf", "config.yaml"))
                        + "\nexecution.checkpointing.data-inline-threshold: 1b\n");
        // The run halts as kill -9 would, right after it committed its third batch (batches 1 to
        // 8 read files 2 to 9): with batches a checkpoint apart, a kill sent on seeing a new batch
        // could come after the run had finished, leaving nothing to read again.
        ChildJvm.Launcher launcher =
                ChildJvm.of(Main.class)
                        .jvmOption("-D" + TestPauses.HALT_PROPERTY + "=delta-commit:events_5min:3")
                        .workDir(work)
                        .tmpDir(dir.resolve("child-tmp"))
                        .output(dir.resolve("killed.log"));
        try (ChildJvm child =
                launcher.start(
                        "run",
                        "win5",
                        "--base",
                        base.toString(),
                        "--max-files-per-trigger",
                        "1",
                        "--parallelism",
                        "1",
                        "--checkpoint-interval",
                        "300ms")) {
            assertThat(child.waitFor(Duration.ofSeconds(120)))
                    .as(
                            "the run halted after its third batch's commit; output:%n%s",
                            child.outputText())
                    .isEqualTo(TestPauses.HALT_EXIT_CODE);
        }
        assertThat(ProgressTracker.history(checkpoint).size())
                .as("batches the killed run recorded before it halted")
                .isLessThan(before + 8);
        try (Stream<Path> chk =
                Files.walk(
                        Storage.localFile(checkpoint.checkpoints(), "a test file").toPath(), 2)) {
            assertThat(chk.filter(p -> p.getFileName().toString().startsWith("chk-")))
                    .as("the killed run left retained checkpoints")
                    .isNotEmpty();
        }
        return Map.of();
    }

    // ---------------------------------------------------------------------------------------------

    private RunOptions withWarehouse(Path base, Path warehouse) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .warehouse(Storage.location(warehouse.toFile()))
                .parallelism(2)
                .printProgress(false)
                .out(new PrintStream(printed, true, StandardCharsets.UTF_8))
                .build();
    }

    /** Every table's rows, sorted, and the SQL table's ({@code latest}). */
    private Map<String, List<List<Object>>> tables(Path base) throws Exception {
        RunOptions options = options(base);
        Warehouse warehouse = new Warehouse(options.warehouse());
        Map<String, List<List<Object>>> tables = new TreeMap<>();
        for (String table : warehouse.tables()) {
            tables.put(table, warehouse.sortedValues(table));
        }
        List<List<Object>> latest = new ArrayList<>();
        try (Connection c = options.database().connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT * FROM " + LatestQuery.TABLE + " ORDER BY 1")) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    row.add(rs.getObject(i));
                }
                latest.add(row);
            }
        }
        tables.put(LatestQuery.TABLE, latest);
        assertThat(tables.get("events_bronze")).isNotEmpty();
        assertThat(tables.get("events_5min")).isNotEmpty();
        return tables;
    }

    private List<Long> ids(Path base, String table) {
        return new Warehouse(options(base).warehouse())
                .sortedValues(table).stream().map(row -> (Long) row.get(0)).toList();
    }

    /** {@code cp -a}: the copy keeps every file's bytes and times. */
    private static void copyBase(Path from, Path to) throws Exception {
        Process cp =
                new ProcessBuilder("cp", "-a", from.toString(), to.toString()).inheritIO().start();
        assertThat(cp.waitFor()).isZero();
    }

    /** Every file below {@code root} by its relative path: its bytes' hash and its time. */
    private static Map<Path, String> fingerprint(Path root) throws IOException {
        Map<Path, String> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (Files.isRegularFile(p) && !p.getFileName().toString().startsWith(".lock")) {
                    files.put(
                            root.relativize(p),
                            Arrays.hashCode(Files.readAllBytes(p))
                                    + " "
                                    + Files.getLastModifiedTime(p).toMillis());
                }
            }
        }
        return files;
    }
}
