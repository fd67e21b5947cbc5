package org.flinkss.runtime.progress;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.storage.Storage;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** How per-checkpoint fragments become one progress object per batch. */
class ProgressTrackerTest {

    private static final String RUN = "run-1";

    @TempDir Path checkpoint;

    private RunScope scope() {
        return new RunScope(new CheckpointLayout(Storage.location(checkpoint.toFile())), RUN);
    }

    private void source(long checkpointId, long batchId, long rows) {
        BatchSummary batch = new BatchSummary();
        batch.batchId = batchId;
        batch.numInputRows = rows;
        Fragments.write(
                scope(), checkpointId, new Fragment.SourceBatches("events", List.of(batch)));
    }

    private void sink(long checkpointId, String name, int subtask, long rows) {
        Fragments.write(scope(), checkpointId, new Fragment.SinkRows(name, subtask, 2, rows));
    }

    /** What subtask {@code subtask} counted for bronze's drop rule positive_amount. */
    private void positiveAmount(long checkpointId, int subtask, long passed, long failed) {
        Fragments.write(
                scope(),
                checkpointId,
                new Fragment.ExpectationRows(
                        "events_bronze", "positive_amount", "drop", subtask, passed, failed));
    }

    private ProgressTracker tracker(String query, Map<String, String> sinks) {
        return new ProgressTracker(
                new CheckpointLayout(Storage.location(checkpoint.toFile())),
                "query-id",
                query,
                RUN,
                Map.of(),
                sinks,
                List.of());
    }

    @Test
    void aBatchWaitsForEverySinksFragmentsWhenACheckpointWasCutShort() {
        Map<String, String> sinks = new LinkedHashMap<>();
        sinks.put("events_5min", "upsert");
        sinks.put("events_5min_late", "late rows");
        ProgressTracker tracker = tracker("win5", sinks);

        // Checkpoint 1 was aborted by the stop: the enumerator reported batch 0, the late sink
        // snapshotted both subtasks, the main sink only one of its two.
        source(1, 0, 1000);
        sink(1, "events_5min_late", 0, 0);
        sink(1, "events_5min_late", 1, 0);
        sink(1, "events_5min", 0, 40);
        // The stop's savepoint (checkpoint 2) carries batch 0 again with the rest of the counts.
        source(2, 0, 1000);
        sink(2, "events_5min", 0, 0);
        sink(2, "events_5min", 1, 62);
        sink(2, "events_5min_late", 0, 1);
        sink(2, "events_5min_late", 1, 0);

        List<ObjectNode> emitted = tracker.commit(RUN, Long.MAX_VALUE);

        assertThat(emitted).hasSize(1);
        assertThat(emitted.get(0).path("batchId").asLong()).isZero();
        assertThat(emitted.get(0).path("numInputRows").asLong()).isEqualTo(1000);
        assertThat(emitted.get(0).path("sink").path("numOutputRows").asLong()).isEqualTo(102);
        assertThat(emitted.get(0).path("sink").path("others").path("events_5min_late").asLong())
                .isEqualTo(1);
    }

    /**
     * A run killed right after batch 1's commit and restored from a checkpoint before it reads
     * batch 1 again; the sink skips its commit, and its rows are not batch 2's (issue 38 point 7:
     * sessions recorded 799 rows for a batch that committed 404).
     */
    @Test
    void theRowsOfABatchReadAgainAfterItWasRecordedAreNotTheNextBatchs() {
        Map<String, String> sinks = Map.of("events_sessions", "append");
        ProgressTracker tracker = tracker("sessions", sinks);
        source(1, 0, 500);
        sink(1, "events_sessions", 0, 340);
        sink(1, "events_sessions", 1, 4);
        source(2, 1, 500);
        sink(2, "events_sessions", 0, 390);
        sink(2, "events_sessions", 1, 5);
        assertThat(tracker.commit(RUN, 2)).hasSize(2);

        // Read again: a checkpoint with rows and no batch, then batch 1 sealed again.
        sink(3, "events_sessions", 0, 200);
        sink(3, "events_sessions", 1, 0);
        source(4, 1, 500);
        sink(4, "events_sessions", 0, 190);
        sink(4, "events_sessions", 1, 5);
        // Batch 2, new.
        source(5, 2, 500);
        sink(5, "events_sessions", 0, 400);
        sink(5, "events_sessions", 1, 4);

        List<ObjectNode> emitted = tracker.commit(RUN, Long.MAX_VALUE);

        assertThat(emitted).hasSize(1);
        assertThat(emitted.get(0).path("batchId").asLong()).isEqualTo(2);
        assertThat(emitted.get(0).path("sink").path("numOutputRows").asLong()).isEqualTo(404);
    }

    /**
     * A driver killed while it removed a merged checkpoint's folder leaves some of its files: the
     * source's batches went first, a sink's count is left. The next run does not merge it again (CI
     * saw sessions record 799 rows for a batch that committed 404 this way).
     */
    @Test
    void whatAKillLeftOfAMergedCheckpointsFolderIsNotMergedAgain() {
        Map<String, String> sinks = Map.of("events_sessions", "append");
        source(1, 0, 500);
        sink(1, "events_sessions", 0, 390);
        sink(1, "events_sessions", 1, 5);
        assertThat(tracker("sessions", sinks).commit(RUN, 1)).hasSize(1);
        sink(1, "events_sessions", 0, 390);

        ProgressTracker rerun = tracker("sessions", sinks);
        assertThat(rerun.commit(RUN, 1)).isEmpty();
        assertThat(checkpoint.resolve("progress/pending/" + RUN + "/000000000001")).doesNotExist();
        source(2, 1, 500);
        sink(2, "events_sessions", 0, 400);
        sink(2, "events_sessions", 1, 4);
        List<ObjectNode> emitted = rerun.commit(RUN, 2);

        assertThat(emitted).hasSize(1);
        assertThat(emitted.get(0).path("batchId").asLong()).isEqualTo(1);
        assertThat(emitted.get(0).path("sink").path("numOutputRows").asLong()).isEqualTo(404);
    }

    @Test
    void expectationCountsAreSummedOverSubtasksPerBatchAndStartAgainAtTheNext() {
        Map<String, String> sinks = new LinkedHashMap<>();
        sinks.put("events_bronze", "delta");
        ProgressTracker tracker = tracker("bronze", sinks);

        source(1, 0, 10);
        sink(1, "events_bronze", 0, 4);
        sink(1, "events_bronze", 1, 4);
        positiveAmount(1, 0, 4, 1);
        positiveAmount(1, 1, 4, 1);
        source(2, 1, 5);
        sink(2, "events_bronze", 0, 5);
        sink(2, "events_bronze", 1, 0);
        positiveAmount(2, 0, 5, 0);

        List<ObjectNode> batches = tracker.commit(RUN, 2);

        assertThat(batches.get(0).get("expectations").toString())
                .isEqualTo(
                        "[{\"table\":\"events_bronze\",\"rule\":\"positive_amount\","
                                + "\"action\":\"drop\",\"passed\":8,\"failed\":2}]");
        assertThat(batches.get(1).get("expectations").toString())
                .isEqualTo(
                        "[{\"table\":\"events_bronze\",\"rule\":\"positive_amount\","
                                + "\"action\":\"drop\",\"passed\":5,\"failed\":0}]");
    }

    @Test
    void aQueryWithoutExpectationsHasNoExpectationsField() {
        ProgressTracker tracker = tracker("bronze", Map.of("events_bronze", "delta"));
        source(1, 0, 10);
        sink(1, "events_bronze", 0, 5);
        sink(1, "events_bronze", 1, 5);

        assertThat(tracker.commit(RUN, 1).get(0).has("expectations")).isFalse();
    }
}
