package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.IdentityStore;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.checkpoint.SealedBatch;
import org.flinkss.runtime.checkpoint.SkippedCommit;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.Completeness;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.time.Watermarks;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link DeltaCommitter} on Flink's operator test harness, without a cluster: the data files the
 * writers send are staged in its state, a batch is closed by the checkpoint whose {@link
 * SealedBatch} record says the source sealed it, and committed as one table version once that
 * checkpoint completes; a restore from that checkpoint commits it at once (or finds it committed),
 * and a batch the table already holds for the query is skipped whole and reported.
 *
 * <p>The harness plays the source's part by writing each checkpoint's {@link SealedBatch} record
 * before it takes the snapshot, as the source does before its barrier leaves.
 */
class DeltaCommitterTest {

    private static final String TABLE = "events";
    private static final String SOURCE = "landing";
    private static final RowType ROW_TYPE =
            RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"id"});

    @TempDir java.nio.file.Path dir;

    private CheckpointLayout layout;
    private String folder;
    private String queryId;

    @BeforeEach
    void createTableAndCheckpoint() {
        layout = CheckpointLayout.of(Storage.location(dir.toFile()), "q");
        queryId =
                new IdentityStore(layout)
                        .claim(new QueryIdentity("q", List.of(SOURCE), List.of(TABLE), List.of()));
        folder = dir.resolve("warehouse").resolve(TABLE).toUri().toString();
        DeltaTable.forPath(folder).create(ROW_TYPE, Map.of());
    }

    @Test
    void stagesUntilACheckpointClosesABatchAndCommitsItWhenThatCheckpointCompletes()
            throws Exception {
        RunScope run = new RunScope(layout, "run-1");
        long created = table().version();
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer = open(run)) {
            // Step 1: two files of batch 0; checkpoint 1 comes before the source sealed it.
            committer.processElement(file(0, 3));
            committer.processElement(file(3, 2));
            checkpoint(committer, run, 1, -1);
            committer.notifyOfCompletedCheckpoint(1);
            assertThat(table().version())
                    .as("a periodic checkpoint only stages")
                    .isEqualTo(created);

            // Step 2: the last file; checkpoint 2's record says batch 0 is sealed: it is closed,
            // but not committed before the checkpoint completes.
            committer.processElement(file(5, 1));
            checkpoint(committer, run, 2, 0);
            assertThat(table().version()).isEqualTo(created);
            assertThat(table().committedBatch(queryId)).isEmpty();

            // Step 3: checkpoint 2 completes: batch 0 is one version with every staged file.
            committer.notifyOfCompletedCheckpoint(2);
            assertThat(table().version()).isEqualTo(created + 1);
            assertThat(table().committedBatch(queryId)).isEqualTo(OptionalLong.of(0));
            assertThat(ids()).containsExactlyElementsOf(range(0, 6));

            // Step 4: batch 1 has one file; its commit is the next version.
            committer.processElement(file(6, 4));
            checkpoint(committer, run, 3, 1);
            committer.notifyOfCompletedCheckpoint(3);
            assertThat(table().version()).isEqualTo(created + 2);
            assertThat(table().committedBatch(queryId)).isEqualTo(OptionalLong.of(1));
            assertThat(ids()).containsExactlyElementsOf(range(0, 10));
        }
        assertThat(SkippedCommit.readAll(layout, run.runId())).isEmpty();
    }

    @Test
    void realTimeStepsSealedBeforeACheckpointAreOneCommitNamedAfterTheLastStep() throws Exception {
        RunScope run = new RunScope(layout, "run-1");
        long created = table().version();
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer = open(run)) {
            // Step 1: rows of step 0 staged; checkpoint 1 finds no step sealed: nothing commits.
            committer.processElement(file(0, 3));
            checkpoint(committer, run, 1, -1);
            committer.notifyOfCompletedCheckpoint(1);
            assertThat(table().version()).isEqualTo(created);

            // Step 2: steps 0 to 4 sealed before checkpoint 2, and rows of step 5 staged before
            // its barrier: one version, batch 4, everything staged before the barrier.
            committer.processElement(file(3, 2));
            committer.processElement(file(5, 1));
            checkpoint(committer, run, 2, 4);
            committer.notifyOfCompletedCheckpoint(2);
            assertThat(table().version()).isEqualTo(created + 1);
            assertThat(table().committedBatch(queryId)).isEqualTo(OptionalLong.of(4));
            assertThat(ids()).containsExactlyElementsOf(range(0, 6));

            // Step 3: step 5 is still read at checkpoint 3: its rows wait for the next commit.
            committer.processElement(file(6, 2));
            checkpoint(committer, run, 3, 4);
            committer.notifyOfCompletedCheckpoint(3);
            assertThat(table().version()).isEqualTo(created + 1);

            // Step 4: steps 5 to 9 sealed before checkpoint 4: batch 9, the rows of both.
            committer.processElement(file(8, 1));
            checkpoint(committer, run, 4, 9);
            committer.notifyOfCompletedCheckpoint(4);
            assertThat(table().version()).isEqualTo(created + 2);
            assertThat(table().committedBatch(queryId)).isEqualTo(OptionalLong.of(9));
            assertThat(ids()).containsExactlyElementsOf(range(0, 9));
        }
        assertThat(SkippedCommit.readAll(layout, run.runId())).isEmpty();
    }

    @Test
    void eachCommitRecordsTheWatermarkThatClosedItsBatchAlsoAfterARestore() throws Exception {
        long fiveMinutes = Instant.parse("2025-03-01T00:05:00Z").toEpochMilli();
        long tenMinutes = Instant.parse("2025-03-01T00:10:00Z").toEpochMilli();
        RunScope first = new RunScope(layout, "run-1");
        OperatorSubtaskState closedNotCommitted;
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer =
                open(first, Completeness.WINDOW_END)) {
            // Step 1: batch 0 before any watermark (a query's first batch): nothing recorded.
            committer.processElement(file(0, 1));
            checkpoint(committer, first, 1, 0);
            committer.notifyOfCompletedCheckpoint(1);
            assertThat(table().completeness()).isEqualTo(Completeness.NONE);

            // Step 2: batch 1 ends with Spark's watermark 00:05 (Flink's is a millisecond less).
            committer.processElement(file(1, 1));
            committer.processWatermark(new Watermark(Watermarks.toFlink(fiveMinutes)));
            checkpoint(committer, first, 2, 1);
            committer.notifyOfCompletedCheckpoint(2);
            assertThat(table().completeness())
                    .isEqualTo(new Completeness(fiveMinutes, fiveMinutes, "window_end"));

            // Step 3: batch 2 is closed at 00:10, and the job stops before its commit.
            committer.processElement(file(2, 1));
            committer.processWatermark(new Watermark(Watermarks.toFlink(tenMinutes)));
            closedNotCommitted = checkpoint(committer, first, 3, 2);
        }
        // Step 4: the restore commits it with the watermark it was closed with.
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer =
                restore(new RunScope(layout, "run-2"), closedNotCommitted)) {
            assertThat(table().committedBatch(queryId)).isEqualTo(OptionalLong.of(2));
        }
        assertThat(table().history(1).get(0).completeness().watermark()).isEqualTo(tenMinutes);
        assertThat(table().completeness().finalBefore())
                .as("the restored committer was made without a final column")
                .isNull();
    }

    @Test
    void aCheckpointWithoutTheSourcesRecordFailsNamingTheFile() throws Exception {
        RunScope run = new RunScope(layout, "run-1");
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer = open(run)) {
            committer.processElement(file(0, 1));
            assertThatThrownBy(() -> committer.snapshot(7, 0))
                    .rootCause()
                    .hasMessageContaining("table 'events': source 'landing' left no record")
                    .hasMessageContaining("at checkpoint 7")
                    .hasMessageContaining(run.sealedBatches(SOURCE).location(7L).getPath());
        }
    }

    @Test
    void aRestoreFromTheCheckpointThatClosedABatchCommitsItAtOnce() throws Exception {
        RunScope first = new RunScope(layout, "run-1");
        long created = table().version();
        OperatorSubtaskState closedNotCommitted;
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer = open(first)) {
            committer.processElement(file(0, 2));
            committer.processElement(file(2, 3));
            closedNotCommitted = checkpoint(committer, first, 1, 0);
            // The job stops before checkpoint 1's completion reaches the committer.
        }
        assertThat(table().version()).isEqualTo(created);

        RunScope second = new RunScope(layout, "run-2");
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer =
                restore(second, closedNotCommitted)) {
            // A restored checkpoint completed: its closed batch is committed while the operator
            // initializes, before any record or checkpoint of the new run.
            assertThat(table().version()).isEqualTo(created + 1);
            assertThat(table().committedBatch(queryId)).isEqualTo(OptionalLong.of(0));
            assertThat(ids()).containsExactlyElementsOf(range(0, 5));
        }

        // Restored from the same checkpoint again, after the commit: found done, nothing new,
        // nothing reported.
        RunScope third = new RunScope(layout, "run-3");
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer =
                restore(third, closedNotCommitted)) {
            assertThat(table().version()).isEqualTo(created + 1);
            assertThat(ids()).containsExactlyElementsOf(range(0, 5));
        }
        assertThat(SkippedCommit.readAll(layout, "run-2")).isEmpty();
        assertThat(SkippedCommit.readAll(layout, "run-3")).isEmpty();
    }

    @Test
    void filesStagedForAnOpenBatchSurviveARestore() throws Exception {
        RunScope first = new RunScope(layout, "run-1");
        OperatorSubtaskState staged;
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer = open(first)) {
            committer.processElement(file(0, 4));
            staged = checkpoint(committer, first, 1, -1);
            committer.notifyOfCompletedCheckpoint(1);
        }

        RunScope second = new RunScope(layout, "run-2");
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer = restore(second, staged)) {
            committer.processElement(file(4, 1));
            checkpoint(committer, second, 2, 0);
            committer.notifyOfCompletedCheckpoint(2);
        }
        assertThat(table().committedBatch(queryId)).isEqualTo(OptionalLong.of(0));
        assertThat(ids())
                .as("batch 0: the file staged before the restore and the one after")
                .containsExactlyElementsOf(range(0, 5));
    }

    @Test
    void aReplayedBatchTheTableHoldsIsSkippedWholeAndReported() throws Exception {
        RunScope first = new RunScope(layout, "run-1");
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer = open(first)) {
            batchesZeroAndOne(committer, first);
        }
        long held = table().version();
        assertThat(table().committedBatch(queryId)).isEqualTo(OptionalLong.of(1));

        // Step 2: a run restored from no checkpoint reads batches 0 and 1 again (the offset log
        // keeps their plans); its writers stage new files for them, and batch 2 is new.
        RunScope replay = new RunScope(layout, "run-2");
        try (OneInputStreamOperatorTestHarness<byte[], Void> committer = open(replay)) {
            batchesZeroAndOne(committer, replay);
            assertThat(table().version()).as("nothing committed for the replay").isEqualTo(held);

            committer.processElement(file(4, 3));
            checkpoint(committer, replay, 3, 2);
            committer.notifyOfCompletedCheckpoint(3);
        }
        assertThat(table().version()).isEqualTo(held + 1);
        assertThat(table().committedBatch(queryId)).isEqualTo(OptionalLong.of(2));
        assertThat(ids()).as("each row once").containsExactlyElementsOf(range(0, 7));
        assertThat(SkippedCommit.readAll(layout, "run-2"))
                .containsExactly(new SkippedCommit(TABLE, 0, 1), new SkippedCommit(TABLE, 1, 1));
    }

    /**
     * Batch 0 (ids 0, 1) sealed at checkpoint 1, batch 1 (ids 2, 3) at checkpoint 2, which
     * completes.
     */
    private void batchesZeroAndOne(
            OneInputStreamOperatorTestHarness<byte[], Void> committer, RunScope run)
            throws Exception {
        committer.processElement(file(0, 2));
        checkpoint(committer, run, 1, 0);
        committer.processElement(file(2, 2));
        checkpoint(committer, run, 2, 1);
        committer.notifyOfCompletedCheckpoint(2);
    }

    private OneInputStreamOperatorTestHarness<byte[], Void> open(RunScope run) throws Exception {
        OneInputStreamOperatorTestHarness<byte[], Void> harness = harness(run);
        harness.open();
        return harness;
    }

    private OneInputStreamOperatorTestHarness<byte[], Void> restore(
            RunScope run, OperatorSubtaskState state) throws Exception {
        OneInputStreamOperatorTestHarness<byte[], Void> harness = harness(run);
        harness.initializeState(state);
        harness.open();
        return harness;
    }

    private OneInputStreamOperatorTestHarness<byte[], Void> harness(RunScope run) throws Exception {
        return harness(run, null);
    }

    private OneInputStreamOperatorTestHarness<byte[], Void> harness(
            RunScope run, String finalColumn) throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new DeltaCommitter(TABLE, folder, SOURCE, run, new AppendCommit(), finalColumn));
    }

    private OneInputStreamOperatorTestHarness<byte[], Void> open(RunScope run, String finalColumn)
            throws Exception {
        OneInputStreamOperatorTestHarness<byte[], Void> harness = harness(run, finalColumn);
        harness.open();
        return harness;
    }

    /** Checkpoint {@code id}, taken after the source recorded {@code lastSealed} for it. */
    private static OperatorSubtaskState checkpoint(
            OneInputStreamOperatorTestHarness<byte[], Void> committer,
            RunScope run,
            long id,
            long lastSealed)
            throws Exception {
        run.sealedBatches(SOURCE).add(id, new SealedBatch(SOURCE, id, lastSealed));
        return committer.snapshot(id, id * 1000);
    }

    /** A data file staged in the table's folder, as a writer sends it: ids {@code from..+n-1}. */
    private StreamRecord<byte[]> file(long from, int n) throws IOException {
        List<RowData> rows = new ArrayList<>();
        for (long id = from; id < from + n; id++) {
            rows.add(GenericRowData.of(id));
        }
        DataFile staged = DataFiles.write(new Path(folder), ROW_TYPE, rows);
        return new StreamRecord<>(staged.toBytes());
    }

    private DeltaTable table() {
        return DeltaTable.forPath(folder);
    }

    private List<Long> ids() {
        List<Long> ids = new ArrayList<>();
        for (List<Object> row : Warehouse.sortedValues(table().snapshot())) {
            ids.add((Long) row.get(0));
        }
        return ids;
    }

    private static List<Long> range(long from, long to) {
        return LongStream.range(from, to).boxed().toList();
    }
}
