package org.flinkss.runtime.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.storage.Storage;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The commit reports a run's table committers leave for its driver. */
class SkippedCommitTest {

    @TempDir Path dir;

    @Test
    void reportsAreReadByBatchThenTableBesideThoseOfEarlierVersionsAndClearedForEveryRun()
            throws Exception {
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(dir.toFile()), "win5");
        // Step 1: a report as earlier versions wrote it, and two written now.
        Path old = dir.resolve("_cp/win5/commits/run-1/events_5min_late-0000000000000000003.json");
        Files.createDirectories(old.getParent());
        Files.writeString(
                old, "{\"table\":\"events_5min_late\",\"batchId\":3,\"committedBatch\":4}");
        CheckpointLog<String, SkippedCommit> log = SkippedCommit.log(layout, "run-1");
        for (SkippedCommit s :
                new SkippedCommit[] {
                    new SkippedCommit("events_5min", 4, 4), new SkippedCommit("events_5min", 3, 4)
                }) {
            log.add(s.key(), s);
        }

        // Step 2: by batch, then table; written in the same format.
        assertThat(SkippedCommit.readAll(layout, "run-1"))
                .containsExactly(
                        new SkippedCommit("events_5min", 3, 4),
                        new SkippedCommit("events_5min_late", 3, 4),
                        new SkippedCommit("events_5min", 4, 4));
        assertThat(old.resolveSibling("events_5min-0000000000000000004.json"))
                .hasContent("{\"table\":\"events_5min\",\"batchId\":4,\"committedBatch\":4}");
        assertThat(SkippedCommit.readAll(layout, "run-2")).isEmpty();

        SkippedCommit.clearAll(layout);
        assertThat(SkippedCommit.readAll(layout, "run-1")).isEmpty();
    }
}
