package org.flinkss.runtime.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.storage.Storage;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** What the checkpoint directory keeps about runs in progress. */
class RunRecordsTest {

    @TempDir Path dir;

    @Test
    void aRunsJobAndItsCaughtUpSourcesAreKeptUntilCleared() {
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(dir.toFile()), "joined");
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

    @Test
    void theJobsOfEarlierRunsSayWhereTheyRunAndHowLongTheyGoOnWithoutTheirClient() {
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(dir.toFile()), "bronze");
        RunRecords runs = new RunRecords(layout);
        assertThat(runs.jobs()).isEmpty();

        runs.recordJob(
                "run-1", "job-a", URI.create("http://127.0.0.1:8081"), Duration.ofSeconds(60));
        runs.recordJob("run-2", "job-b", null, null);
        // A run killed before it submitted left only its heartbeat: no job is known for it.
        JsonFiles.touch(layout.heartbeat("run-3"));

        assertThat(runs.jobs())
                .extracting(
                        RunRecords.Job::runId,
                        RunRecords.Job::jobId,
                        RunRecords.Job::jobManager,
                        RunRecords.Job::clientTimeout)
                .containsExactly(
                        tuple(
                                "run-1",
                                "job-a",
                                URI.create("http://127.0.0.1:8081"),
                                Duration.ofSeconds(60)),
                        tuple("run-2", "job-b", null, null));
        assertThat(runs.jobOf("run-3")).isEmpty();
    }

    @Test
    void aJobFileOfAnEarlierVersionIsReadAndTheFormatIsKept() throws Exception {
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(dir.toFile()), "bronze");
        // Step 1: runs/<run>/job.json as earlier versions wrote it.
        Path old =
                Storage.localFile(layout.runs(), "a test file")
                        .toPath()
                        .resolve("run-0")
                        .resolve("job.json");
        Files.createDirectories(old.getParent());
        Files.writeString(
                old,
                "{\"runId\":\"run-0\",\"jobId\":\"job-0\",\"started\":\"2025-03-01T00:00:00Z\","
                    + "\"jobManager\":\"http://127.0.0.1:8081\",\"clientTimeoutMillis\":60000}");
        RunRecords runs = new RunRecords(layout);

        // Step 2: read as it was; a new record written with the same fields.
        assertThat(runs.jobs())
                .containsExactly(
                        new RunRecords.Job(
                                "run-0",
                                "job-0",
                                URI.create("http://127.0.0.1:8081"),
                                Duration.ofSeconds(60),
                                "2025-03-01T00:00:00Z"));
        runs.recordJob("run-1", "job-1", null, Duration.ofSeconds(5));
        JsonNode written =
                JsonFiles.JSON.readTree(
                        Storage.localFile(layout.runs(), "a test file")
                                .toPath()
                                .resolve("run-1")
                                .resolve("job.json")
                                .toFile());
        assertThat(written.fieldNames())
                .toIterable()
                .containsExactly("runId", "jobId", "started", "clientTimeoutMillis");
        assertThat(written.path("clientTimeoutMillis").asLong()).isEqualTo(5000);
    }
}
