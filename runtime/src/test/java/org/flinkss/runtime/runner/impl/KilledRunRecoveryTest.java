package org.flinkss.runtime.runner.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.checkpoint.RunRecords;
import org.flinkss.runtime.progress.BatchSummary;
import org.flinkss.runtime.progress.Fragment;
import org.flinkss.runtime.progress.Fragments;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The progress of a killed driver: kept up to its job's last completed checkpoint. */
class KilledRunRecoveryTest {

    @TempDir Path dir;

    private void batch(CheckpointLayout layout, String run, long checkpointId, long batchId) {
        RunScope scope = new RunScope(layout, run);
        BatchSummary batch = new BatchSummary();
        batch.batchId = batchId;
        batch.numInputRows = 100;
        Fragments.write(scope, checkpointId, new Fragment.SourceBatches("events", List.of(batch)));
        Fragments.write(scope, checkpointId, new Fragment.SinkRows("events_bronze", 0, 1, 100));
    }

    /** A restore point {@code name} in {@code folder}, complete: it has its {@code _metadata}. */
    private static void completed(org.apache.flink.core.fs.Path folder, String name)
            throws IOException {
        Path point =
                Files.createDirectories(
                        Storage.localFile(folder, "a test file").toPath().resolve(name));
        Files.writeString(point.resolve("_metadata"), "x");
    }

    /** The tracker of the run after the killed one, telling {@code committed} what it records. */
    private static ProgressTracker nextRun(CheckpointLayout layout, List<ObjectNode> committed) {
        return new ProgressTracker(
                layout,
                "query-id",
                layout.location().getName(),
                "next-run",
                Map.of("events", "FileStreamSource[x]"),
                Map.of("events_bronze", "DeltaSink[x]"),
                List.of(committed::add));
    }

    @Test
    void whatACompletedCheckpointCoveredIsCommittedAndTheRestDiscarded() throws IOException {
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(dir.toFile()), "bronze");
        // Step 1: a run killed after checkpoint 1 of its job completed and while 2 was taken.
        new RunRecords(layout).recordJob("killed", "job-k", null, null);
        batch(layout, "killed", 1, 0);
        batch(layout, "killed", 2, 1);
        completed(layout.checkpointsOfJob("job-k"), "chk-1");
        // A run killed before its job was even submitted: nothing of it is committed.
        batch(layout, "never-submitted", 1, 0);

        List<ObjectNode> committed = new ArrayList<>();
        ProgressTracker tracker = nextRun(layout, committed);

        // Step 2: the next run recovers before it starts.
        new KilledRunRecovery(new RunRecords(layout), new RestorePoints(layout), tracker).recover();

        assertThat(committed).extracting(p -> p.path("batchId").asLong()).containsExactly(0L);
        assertThat(ProgressTracker.history(layout)).hasSize(1);
        assertThat(tracker.pendingRuns()).isEmpty();
    }

    @Test
    void aRunKilledAfterItsStopWithASavepointCompletedKeepsTheBatchTheSavepointCommitted()
            throws IOException {
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(dir.toFile()), "sessions");
        // Step 1: checkpoint 1 completed; the stop's savepoint (checkpoint 2) completed and
        // committed batch 1 into the tables; the driver was killed before it merged it.
        String job = "3f9a1c0b7e2d4a56b8c9d0e1f2a3b4c5";
        new RunRecords(layout).recordJob("killed", job, null, null);
        batch(layout, "killed", 1, 0);
        batch(layout, "killed", 2, 1);
        completed(layout.checkpointsOfJob(job), "chk-1");
        completed(layout.savepoints(), "savepoint-3f9a1c-0123456789ab");

        List<ObjectNode> committed = new ArrayList<>();
        ProgressTracker tracker = nextRun(layout, committed);

        // Step 2: the next run recovers: both batches, the savepoint's too, once each.
        new KilledRunRecovery(new RunRecords(layout), new RestorePoints(layout), tracker).recover();

        assertThat(committed).extracting(p -> p.path("batchId").asLong()).containsExactly(0L, 1L);
        assertThat(ProgressTracker.history(layout))
                .extracting(p -> p.path("sink").path("numOutputRows").asLong())
                .containsExactly(100L, 100L);
        assertThat(tracker.pendingRuns()).isEmpty();
    }
}
