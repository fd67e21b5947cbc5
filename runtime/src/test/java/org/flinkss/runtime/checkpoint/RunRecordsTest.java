package org.flinkss.runtime.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the checkpoint directory keeps about runs in progress. */
class RunRecordsTest {

    @TempDir Path dir;

    @Test
    void aRunsJobAndItsCaughtUpSourcesAreKeptUntilCleared() {
        CheckpointLayout layout = CheckpointLayout.of(dir, "joined");
        RunRecords runs = new RunRecords(layout);
        assertThat(runs.jobOf("run-1")).isEmpty();

        runs.recordJob("run-1", "job-a", null, null);
        JsonFiles.touch(layout.caughtUpMarker("run-1", "views"));

        assertThat(runs.jobOf("run-1")).contains("job-a");
        assertThat(runs.caughtUp("run-1", List.of("views"))).isTrue();
        assertThat(runs.caughtUp("run-1", List.of("views", "buys"))).isFalse();

        runs.clear();

        assertThat(runs.jobOf("run-1")).isEmpty();
        assertThat(runs.caughtUp("run-1", List.of("views"))).isFalse();
    }
}
