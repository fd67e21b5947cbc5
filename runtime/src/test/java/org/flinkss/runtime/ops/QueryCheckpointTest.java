package org.flinkss.runtime.ops;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLock;
import org.flinkss.runtime.checkpoint.IdentityStore;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.time.Watermarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A query's checkpoint as commands see it: identity, progress, watermark, lock. */
class QueryCheckpointTest {

    @TempDir Path base;

    @Test
    void aCheckpointThatNeverRanHasNoIdentityNoProgressAndNoWatermark() {
        QueryCheckpoint win5 = QueryCheckpoint.of(Storage.location(base.toFile()), "win5");

        assertThat(win5.exists()).isFalse();
        assertThat(win5.progress()).isEmpty();
        assertThat(win5.lastProgress()).isEmpty();
        assertThat(win5.watermark()).isEqualTo(Watermarks.NONE);
        assertThat(win5.toString()).isEqualTo(base.resolve("_cp/win5").toString());
    }

    @Test
    void theIdentityProgressAndWatermarkAreThoseTheRunsLeft() throws Exception {
        // Step 1: a checkpoint as runs leave it: an identity and two committed batches.
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(base.toFile()), "win5");
        String id = new IdentityStore(layout).renew("win5");
        Files.createDirectories(
                Storage.localFile(layout.progressLog().getParent(), "a test file").toPath());
        Files.writeString(
                Storage.localFile(layout.progressLog(), "a test file").toPath(),
                "{\"batchId\":0,\"sources\":[{\"watermarkAfter\":1000}]}\n"
                        + "{\"batchId\":1,\"sources\":[{\"watermarkAfter\":5000}]}\n"
                        + "{\"batchId\":2,\"sour", // cut by a kill
                StandardCharsets.UTF_8);
        Files.writeString(
                Storage.localFile(layout.lastProgress(), "a test file").toPath(),
                "{\"batchId\":2,\"numInputRows\":0}");

        // Step 2: what a command reads of it.
        QueryCheckpoint win5 = QueryCheckpoint.of(Storage.location(base.toFile()), "win5");
        assertThat(win5.exists()).isTrue();
        assertThat(win5.queryId()).isEqualTo(id);
        assertThat(win5.progress())
                .extracting(p -> p.path("batchId").asLong())
                .containsExactly(0L, 1L);
        assertThat(win5.watermark()).isEqualTo(5000);
        assertThat(win5.lastProgress().orElseThrow().path("batchId").asLong()).isEqualTo(2);
        assertThat(QueryCheckpoint.allUnder(Storage.location(base.toFile())))
                .extracting(QueryCheckpoint::query)
                .containsExactly("win5");
    }

    @Test
    void aCommandsLockKeepsRunsOutAndARunsLockKeepsTheCommandOut() {
        QueryCheckpoint bronze = QueryCheckpoint.of(Storage.location(base.toFile()), "bronze");
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(base.toFile()), "bronze");

        try (QueryCheckpoint.Lock lock = bronze.lock()) {
            assertThatThrownBy(() -> CheckpointLock.acquire(layout, "bronze"))
                    .isInstanceOf(QueryException.class)
                    .hasMessageContaining("query 'bronze' is already running");
        }
        try (CheckpointLock run = CheckpointLock.acquire(layout, "bronze")) {
            assertThatThrownBy(bronze::lock)
                    .isInstanceOf(QueryException.class)
                    .hasMessageContaining(
                            "on checkpoint "
                                    + Storage.localFile(layout.location(), "a test file").toPath());
        }
        bronze.lock().close();
    }

    @Test
    void aNameThatIsAPathIsRefused() {
        assertThatThrownBy(
                        () -> QueryCheckpoint.of(Storage.location(base.toFile()), "../elsewhere"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'../elsewhere' is no query name");
        assertThatThrownBy(() -> QueryCheckpoint.of(Storage.location(base.toFile()), "a/b"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(QueryCheckpoint.of(Storage.location(base.toFile()), "_pipeline").query())
                .isEqualTo("_pipeline");
    }
}
