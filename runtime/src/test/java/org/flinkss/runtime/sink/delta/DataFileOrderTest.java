package org.flinkss.runtime.sink.delta;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.IdentityStore;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.AddedFile;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A batch's data files are committed in a stable order, whatever order the writers' descriptions
 * reach the committer in: writer subtask after writer subtask, and within one in the order it wrote
 * them (issue 38: gold's one-file batches over silver followed the order of arrival, run after run
 * a different one).
 */
class DataFileOrderTest {

    private static final RowType ROWS =
            RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"event_id"});

    @TempDir Path dir;

    private RunScope scope() {
        CheckpointLayout layout =
                CheckpointLayout.of(Storage.location(dir.resolve("_cp").toFile()), "q");
        new IdentityStore(layout).renew("q");
        return new RunScope(layout, "run-1");
    }

    /** What writer subtask {@code subtask} of 3 stages: a file per checkpoint, rows per file. */
    private List<DataFile> write(RunScope scope, int subtask, long... rowsPerCheckpoint)
            throws Exception {
        DataFileWriter writer =
                new DataFileWriter("t", dir.resolve("t").toUri().toString(), ROWS, scope);
        List<DataFile> staged = new ArrayList<>();
        try (OneInputStreamOperatorTestHarness<RowData, byte[]> h =
                new OneInputStreamOperatorTestHarness<>(writer, 128, 3, subtask)) {
            h.open();
            long checkpoint = 10;
            long id = subtask * 1000L;
            for (long rows : rowsPerCheckpoint) {
                for (long i = 0; i < rows; i++) {
                    h.processElement(new StreamRecord<>(GenericRowData.of(id++)));
                }
                h.prepareSnapshotPreBarrier(checkpoint++);
            }
            for (byte[] item : h.extractOutputValues()) {
                staged.add(DataFile.fromBytes(item));
            }
        }
        return staged;
    }

    @Test
    void aBatchsFilesAreCommittedSubtaskAfterSubtaskEachInTheOrderItWroteThem() throws Exception {
        RunScope scope = scope();
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
        table.create(ROWS, Map.of());
        List<DataFile> subtask0 = write(scope, 0, 3, 2, 4);
        List<DataFile> subtask2 = write(scope, 2, 1, 5);
        List<DataFile> subtask1 = write(scope, 1, 2, 0, 2);

        // The names say whose files they are and in which order each subtask wrote them.
        assertThat(subtask0).extracting(DataFile::name).allMatch(n -> n.contains("-00000-"));
        assertThat(subtask1).extracting(DataFile::name).allMatch(n -> n.contains("-00001-"));
        assertThat(subtask0.get(0).name()).contains("-0000000000000000001-");
        assertThat(subtask0.get(1).name()).contains("-0000000000000000011-");
        assertThat(subtask1.get(1).name())
                .as("a checkpoint without rows closes no file: the next names the last one")
                .contains("-0000000000000000012-");

        // Step 2: the descriptions arrive shuffled, as from parallel writers.
        List<DataFile> expected = new ArrayList<>();
        expected.addAll(subtask0);
        expected.addAll(subtask1);
        expected.addAll(subtask2);
        List<DataFile> arrived = new ArrayList<>(expected);
        Collections.shuffle(arrived, new Random(38));
        List<byte[]> items = new ArrayList<>();
        arrived.forEach(f -> items.add(f.toBytes()));
        long before = System.currentTimeMillis();
        assertThat(new AppendCommit().commit(table, "query-1", 0, items).committed()).isTrue();

        // Step 3: the log lists them in the writers' order, each with the commit's time.
        List<AddedFile> added = table.filesAdded(1, 1);
        assertThat(added)
                .extracting(f -> f.file().name())
                .containsExactlyElementsOf(expected.stream().map(DataFile::name).toList());
        assertThat(added)
                .extracting(f -> f.file().numRecords())
                .containsExactly(3L, 2L, 4L, 2L, 2L, 1L, 5L);
        assertThat(added)
                .extracting(f -> f.file().modificationTime())
                .containsOnly(added.get(0).file().modificationTime());
        assertThat(added.get(0).file().modificationTime()).isGreaterThanOrEqualTo(before);
    }
}
