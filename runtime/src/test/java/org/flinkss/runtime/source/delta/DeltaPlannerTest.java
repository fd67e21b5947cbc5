package org.flinkss.runtime.source.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link DeltaPlanner} cuts a table's versions into micro-batches, as Spark's {@code
 * DeltaSource} does: a batch is a range of versions; {@code maxFilesPerTrigger} and {@code
 * maxBytesPerTrigger} count the files those versions add; the offset after a batch names the next
 * file to read, as Spark's progress shows it ({@code reservoirVersion}, {@code index}). And what
 * planning reads: log entries by name, never a listing of the table's folder, seen through {@link
 * RecordingFileSystem}.
 *
 * <p>The table is written with data files of chosen sizes ({@code a} is 60 bytes): planning reads
 * only the log, which records them, as Spark's planning does.
 */
class DeltaPlannerTest {

    private static final RowType ROW = RowType.of(new BigIntType());

    @TempDir java.nio.file.Path dir;

    private java.nio.file.Path folder;
    private DeltaTable table;

    /** Where a stream that has read the table's first version stands: the next file is v2's. */
    private byte[] afterVersionOne;

    @BeforeEach
    void tableOfKnownFileSizes() throws Exception {
        folder = dir.resolve("t");
        table = DeltaTable.forPath(folder.toUri().toString());
        table.create(ROW, Map.of()); // version 0
        table.append("writer", 0, List.of(file("seed", 10))); // version 1

        // A stream reads the snapshot at version 1 in its first batch and commits it.
        DeltaPlanner first = planner();
        first.restore(null);
        first.refreshTarget();
        List<DeltaSplit> seed = first.nextBatch(0, ReadLimit.none());
        assertThat(names(seed)).containsExactly("v1:seed");
        first.commit(seed);
        afterVersionOne = first.committed();

        table.append("writer", 1, List.of(file("a", 60), file("b", 60))); // version 2
        table.append("writer", 2, List.of(file("c", 250))); // version 3: larger than 100 bytes
        table.append("writer", 3, List.of(file("d", 30), file("e", 30), file("f", 30))); // 4
        table.append("writer", 4, List.of()); // version 5: a batch that added nothing
        table.append("writer", 5, List.of(file("g", 60))); // version 6
        assertThat(table.version()).isEqualTo(6);
    }

    @Test
    void maxFilesPerTriggerCutsTheAddedFilesIntoBatchesAcrossVersions() throws Exception {
        List<Batch> batches = planAll(ReadLimit.none().withMaxFilesPerTrigger(2));

        assertThat(batches)
                .containsExactly(
                        new Batch(List.of("v2:a", "v2:b"), 3, -1),
                        new Batch(List.of("v3:c", "v4:d"), 4, 0),
                        new Batch(List.of("v4:e", "v4:f"), 6, -1),
                        // Version 5 added nothing: the offset after f moved past it while
                        // looking for a third file.
                        new Batch(List.of("v6:g"), 7, -1));
    }

    /**
     * Delta's {@code maxBytesPerTrigger} is a soft limit: a batch admits files while it has read
     * less than the limit, so the file that crosses it is read in the batch, and a file larger than
     * the limit is a batch of its own ({@code DeltaSource.AdmissionLimits}: {@code admit} while
     * {@code bytesToTake > 0}, then subtract the file's size).
     */
    @Test
    void maxBytesPerTriggerTakesFilesUntilTheLimitIsReachedAndALargerFileAlone() throws Exception {
        List<Batch> batches = planAll(ReadLimit.none().withMaxBytesPerTrigger(100));

        assertThat(batches)
                .containsExactly(
                        // 60 + 60: the second file crosses 100 bytes and is still taken.
                        new Batch(List.of("v2:a", "v2:b"), 3, -1),
                        // 250 bytes, more than the limit: taken alone.
                        new Batch(List.of("v3:c"), 4, -1),
                        // 30 + 30 + 30 leave 10 bytes of room: g (60) is taken too.
                        new Batch(List.of("v4:d", "v4:e", "v4:f", "v6:g"), 7, -1));
    }

    @Test
    void bothLimitsTogetherEndABatchAtWhicheverComesFirst() throws Exception {
        List<Batch> batches =
                planAll(ReadLimit.none().withMaxFilesPerTrigger(2).withMaxBytesPerTrigger(100));

        assertThat(batches)
                .containsExactly(
                        new Batch(List.of("v2:a", "v2:b"), 3, -1),
                        new Batch(List.of("v3:c"), 4, -1),
                        new Batch(List.of("v4:d", "v4:e"), 4, 1),
                        new Batch(List.of("v4:f", "v6:g"), 7, -1));
    }

    @Test
    void planningFromAPositionReadsLogEntriesByNameAndListsNothing() throws Exception {
        RecordingFileSystem.clear();
        planAll(ReadLimit.none().withMaxFilesPerTrigger(2));
        List<String> calls = RecordingFileSystem.calls();

        String log = folder.toAbsolutePath().normalize() + "/_delta_log/";
        assertThat(calls).isNotEmpty().noneMatch(c -> c.startsWith("list "));
        assertThat(calls)
                .as("every file planning touched")
                .allSatisfy(c -> assertThat(c).matches("(status|open) " + log + "\\d{20}\\.json"));
    }

    @Test
    void aNewStreamReadsTheLogFolderButNeverListsTheTablesFolder() throws Exception {
        RecordingFileSystem.clear();
        DeltaPlanner planner = planner();
        planner.restore(null);
        planner.refreshTarget();
        List<DeltaSplit> batch = planner.nextBatch(0, ReadLimit.none());
        List<String> calls = RecordingFileSystem.calls();

        // The snapshot at version 6, in the order of the files' modification times.
        assertThat(names(batch))
                .containsExactly("v6:seed", "v6:a", "v6:b", "v6:c", "v6:d", "v6:e", "v6:f", "v6:g");
        String root = folder.toAbsolutePath().normalize().toString();
        // Kernel finds the newest version by listing _delta_log/ from its last checkpoint.
        assertThat(calls)
                .filteredOn(c -> c.startsWith("list "))
                .isNotEmpty()
                .allSatisfy(c -> assertThat(c).isEqualTo("list " + root + "/_delta_log"));
        assertThat(calls)
                .as("every file planning touched")
                .allSatisfy(c -> assertThat(c).contains(" " + root + "/_delta_log"));
    }

    /** A batch as planned: its files ({@code v<version>:<name>}) and the offset after it. */
    private record Batch(List<String> files, long reservoirVersion, long index) {}

    /** Plans and commits batches from {@link #afterVersionOne} until one comes back empty. */
    private List<Batch> planAll(ReadLimit limit) throws Exception {
        DeltaPlanner planner = planner();
        planner.restore(afterVersionOne);
        planner.refreshTarget();
        List<Batch> batches = new ArrayList<>();
        for (long batchId = 1; batchId < 20; batchId++) {
            List<DeltaSplit> splits = planner.nextBatch(batchId, limit);
            if (splits.isEmpty()) {
                return batches;
            }
            planner.commit(splits);
            Map<String, Object> offset = planner.describeOffsets();
            batches.add(
                    new Batch(
                            names(splits),
                            (Long) offset.get("reservoirVersion"),
                            (Long) offset.get("index")));
        }
        throw new AssertionError("planning never ended: " + batches);
    }

    /** A planner that reaches the table through {@link RecordingFileSystem}. */
    private DeltaPlanner planner() {
        return new DeltaPlanner("t", RecordingFileSystem.uri(folder));
    }

    /** Files in the order they were made: a new stream reads a snapshot by modification time. */
    private long files;

    private DataFile file(String name, long size) {
        long time = 1_700_000_000_000L + files++;
        return DataFile.of(folder.resolve(name + ".parquet").toUri().toString(), size, time, 1);
    }

    private static List<String> names(List<DeltaSplit> splits) {
        List<String> names = new ArrayList<>();
        for (DeltaSplit s : splits) {
            String name = new Path(s.path()).getName();
            names.add("v" + s.version() + ":" + name.substring(0, name.indexOf('.')));
        }
        return names;
    }
}
