package org.flinkss.jobs;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.checkpoint.IdentityStore;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.RunFence;
import org.flinkss.runtime.checkpoint.RunRecords;
import org.flinkss.runtime.checkpoint.RunScope;
import org.flinkss.runtime.checkpoint.SealedBatch;
import org.flinkss.runtime.checkpoint.SkippedCommit;
import org.flinkss.runtime.storage.Storage;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The small files of a checkpoint directory on S3 (S3Proxy), through {@link Storage}: the fence,
 * the runs' records and markers, sealed batches, commit reports, the identity; and what reset
 * deletes.
 */
@Tag("ports")
class CheckpointFilesS3ITCase {

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("cpfiles-s3-it");

    @Test
    void theRunFilesOfACheckpointOnS3AreWrittenReadAndCleared() throws Exception {
        Path base = S3.server().freshPrefix("files");
        CheckpointLayout layout = CheckpointLayout.of(base, "win5");
        RunScope scope = new RunScope(layout, "run-1", Duration.ofSeconds(60));

        // The fence names the run that owns the directory.
        assertThat(RunFence.owner(layout)).isEmpty();
        RunFence.claim(layout, "run-1");
        assertThat(RunFence.owner(layout)).contains("run-1");
        assertThat(new RunFence(scope).reasonToStop()).isEmpty();
        RunFence.claim(layout, "run-2");
        assertThat(new RunFence(scope).reasonToStop().orElseThrow())
                .contains("run run-1 of checkpoint " + layout.location(), "is fenced");

        // The records of runs: the job, the caught-up markers, the checkpoint wanted.
        RunRecords runs = new RunRecords(layout);
        runs.recordJob("run-1", "job-a", null, Duration.ofSeconds(60));
        runs.recordJob("run-2", "job-b", null, null);
        assertThat(runs.jobs()).extracting(RunRecords.Job::jobId).containsExactly("job-a", "job-b");
        assertThat(runs.jobOf("run-2")).contains("job-b");
        assertThat(runs.caughtUp("run-1", List.of("events"))).isFalse();
        JsonFiles.touch(scope.caughtUpMarkerLocation("events"));
        assertThat(runs.caughtUp("run-1", List.of("events"))).isTrue();
        assertThat(runs.checkpointWanted("run-1", List.of("events"))).isEqualTo(-1);
        JsonFiles.write(scope.checkpointWantedLocation("events"), 7L);
        assertThat(runs.checkpointWanted("run-1", List.of("events"))).isEqualTo(7);

        // Sealed batches: written per checkpoint, the older ones forgotten.
        for (long chk = 1; chk <= 3; chk++) {
            new SealedBatch("events", chk, chk * 10).write(scope);
        }
        SealedBatch.forgetBefore(scope, "events", 3);
        assertThat(SealedBatch.read(scope, "events", 1)).isEmpty();
        assertThat(SealedBatch.read(scope, "events", 3).orElseThrow().lastSealed()).isEqualTo(30);

        // Commit reports, by batch then table; cleared.
        new SkippedCommit("events_5min_late", 4, 4).write(scope);
        new SkippedCommit("events_5min", 4, 4).write(scope);
        new SkippedCommit("events_5min", 2, 4).write(scope);
        assertThat(SkippedCommit.readAll(layout, "run-1"))
                .extracting(c -> c.table() + "@" + c.batchId())
                .containsExactly("events_5min@2", "events_5min@4", "events_5min_late@4");
        SkippedCommit.clearAll(layout);
        assertThat(SkippedCommit.readAll(layout, "run-1")).isEmpty();

        runs.clear();
        assertThat(runs.jobs()).isEmpty();
        assertThat(Storage.list(layout.runsLocation())).isEmpty();

        // The identity a reset writes, and what a reset deletes.
        String id = new IdentityStore(layout).renew("win5");
        assertThat(JsonFiles.readTree(layout.metadataLocation()).path("id").asText()).isEqualTo(id);
        new IdentityStore(layout).checkLayout("win5");
        for (Path part : layout.resetParts()) {
            Folders.deleteQuietly(part);
        }
        assertThat(Storage.exists(layout.metadataLocation())).isFalse();
        assertThat(Storage.exists(layout.fenceLocation())).isTrue(); // not a run's output
    }
}
