package org.flinkss.connector.delta.internal;

import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Every writer subtask's files of a checkpoint become one committable, of that checkpoint. */
class CheckpointFilesTest {

    private static final RowType ROWS =
            RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"id"});

    @TempDir Path dir;

    @Test
    void theFilesOfAllSubtasksBecomeOneCommittableOfTheCheckpointAtItsBarrier() throws Exception {
        String table = dir.resolve("t").toUri().toString();
        try (var harness = harness(table)) {
            // Step 1: the table is created when the task opens.
            assertThat(DeltaTable.forPath(table).exists()).isTrue();

            // Step 2: two subtasks' files of checkpoint 3 arrive, with their summaries.
            harness.processElement(new CommittableSummary<>(0, 2, 3, 1, 0), 0);
            harness.processElement(new CommittableWithLineage<>(file("a", 5), 3, 0), 0);
            harness.processElement(new CommittableSummary<>(1, 2, 3, 1, 0), 0);
            harness.processElement(new CommittableWithLineage<>(file("b", 7), 3, 1), 0);
            assertThat(harness.getOutput()).isEmpty();

            // Step 3: at the barrier, one summary and one committable of both files.
            harness.prepareSnapshotPreBarrier(3);
            List<CommittableMessage<DeltaCommittable>> out = harness.extractOutputValues();
            assertThat(out).hasSize(2);
            assertThat(out.get(0)).isInstanceOf(CommittableSummary.class);
            assertThat(((CommittableSummary<?>) out.get(0)).getNumberOfSubtasks()).isEqualTo(1);
            DeltaCommittable committable =
                    ((CommittableWithLineage<DeltaCommittable>) out.get(1)).getCommittable();
            assertThat(committable.checkpointId()).isEqualTo(3);
            assertThat(committable.appId()).startsWith("flink-");
            assertThat(committable.files())
                    .extracting(DataFile::numRecords)
                    .containsExactly(5L, 7L);

            // Step 4: a checkpoint with no files emits nothing: no empty commit.
            harness.prepareSnapshotPreBarrier(4);
            assertThat(harness.extractOutputValues()).hasSize(2);
        }
    }

    @Test
    void filesArrivingLateTakeTheCheckpointOfTheirBarrierSoTxnVersionsOnlyGrow() throws Exception {
        String table = dir.resolve("t").toUri().toString();
        try (var harness = harness(table)) {
            // A file of writer checkpoint 2 reaching the task after its barrier 5 (in flight in an
            // unaligned checkpoint, say) is committed as 5: a txn of 2 would be skipped as a
            // replay once 4 is committed.
            harness.processElement(new CommittableWithLineage<>(file("late", 1), 2, 0), 0);
            harness.prepareSnapshotPreBarrier(5);
            DeltaCommittable committable =
                    ((CommittableWithLineage<DeltaCommittable>)
                                    harness.extractOutputValues().get(1))
                            .getCommittable();
            assertThat(committable.checkpointId()).isEqualTo(5);
        }
    }

    @Test
    void theLastFilesAtTheEndOfInputGoPastTheLastCheckpointEmitted() throws Exception {
        String table = dir.resolve("t").toUri().toString();
        try (var harness = harness(table)) {
            harness.processElement(new CommittableWithLineage<>(file("a", 1), 1, 0), 0);
            harness.prepareSnapshotPreBarrier(6);
            // The writers' end-of-input files carry their last known checkpoint + 1 (here 4,
            // written before they saw 6): committed as 7, after 6.
            harness.processElement(new CommittableWithLineage<>(file("b", 2), 4, 0), 0);
            harness.getOperator().finish();
            List<CommittableMessage<DeltaCommittable>> out = harness.extractOutputValues();
            assertThat(out).hasSize(4);
            assertThat(((CommittableWithLineage<DeltaCommittable>) out.get(3)).getCheckpointId())
                    .isEqualTo(7);
        }
    }

    private static OneInputStreamOperatorTestHarness<
                    CommittableMessage<DataFile>, CommittableMessage<DeltaCommittable>>
            harness(String table) throws Exception {
        var harness =
                new OneInputStreamOperatorTestHarness<>(new CheckpointFiles(table, ROWS, Map.of()));
        harness.open();
        return harness;
    }

    private static DataFile file(String name, long rows) {
        return DataFile.of("file:/t/" + name + ".parquet", 100, 1L, rows);
    }
}
