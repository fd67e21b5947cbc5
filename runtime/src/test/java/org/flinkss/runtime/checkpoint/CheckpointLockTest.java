package org.flinkss.runtime.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.storage.Storage;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One run at a time on a checkpoint directory. */
class CheckpointLockTest {

    @TempDir Path dir;

    @Test
    void aSecondRunIsRefusedNamingTheHolderUntilTheFirstLetsGo() {
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(dir.toFile()), "bronze");

        try (CheckpointLock first = CheckpointLock.acquire(layout, "bronze")) {
            assertThatThrownBy(() -> CheckpointLock.acquire(layout, "bronze"))
                    .isInstanceOf(QueryException.class)
                    .hasMessageContaining(
                            "query 'bronze' is already running on checkpoint "
                                    + Storage.localFile(layout.location(), "a test file").toPath())
                    .hasMessageContaining("(pid " + ProcessHandle.current().pid() + ", started ");
        }

        CheckpointLock.acquire(layout, "bronze").close();
        assertThat(Storage.localFile(layout.lockFile(), "a test file").toPath()).exists();
    }
}
