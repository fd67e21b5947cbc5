package org.flinkss.runtime.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.storage.Storage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which run's job may go on: the one that owns the checkpoint, while its client beats. */
class RunFenceTest {

    @TempDir Path dir;

    @Test
    void theJobOfAnEarlierRunIsFencedOnceANewRunClaimsTheCheckpoint() {
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(dir.toFile()), "bronze");
        RunFence first = new RunFence(layout, "run-1", null);
        first.checkOwner(); // a directory nobody claimed: older versions' jobs go on

        RunFence.claim(layout, "run-1");
        first.checkOwner();
        assertThat(first.reasonToStop()).isEmpty();

        RunFence.claim(layout, "run-2");
        assertThat(RunFence.owner(layout)).contains("run-2");
        assertThatThrownBy(first::checkOwner)
                .isInstanceOf(PermanentFailure.class)
                .hasMessageContaining(
                        "run run-1 of checkpoint "
                                + Storage.localFile(layout.location(), "a test file").toPath()
                                + " is fenced")
                .hasMessageContaining("run run-2");
        assertThat(first.reasonToStop()).get().asString().contains("is fenced");
        new RunFence(layout, "run-2", null).checkOwner();
    }

    @Test
    void aJobStopsOnceItsClientHasBeenSilentForItsTimeout() throws Exception {
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(dir.toFile()), "bronze");
        RunFence.claim(layout, "run-1");
        RunFence fence = new RunFence(layout, "run-1", Duration.ofMillis(300));
        Path heartbeat = Storage.localFile(layout.heartbeat("run-1"), "a test file").toPath();
        Files.createDirectories(heartbeat.getParent());

        for (int beat = 1; beat <= 5; beat++) {
            Files.writeString(heartbeat, "beat " + beat);
            Thread.sleep(100);
            assertThat(fence.reasonToStop()).as("beat %d", beat).isEmpty();
        }
        Thread.sleep(400);
        assertThat(fence.reasonToStop())
                .get()
                .asString()
                .contains("the client of run run-1")
                .contains("has not been heard from");

        RunFence untimed = new RunFence(layout, "run-1", null);
        Thread.sleep(400);
        assertThat(untimed.reasonToStop()).as("no client timeout").isEmpty();
    }
}
