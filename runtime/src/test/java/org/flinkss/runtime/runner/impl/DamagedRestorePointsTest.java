package org.flinkss.runtime.runner.impl;

import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.storage.Storage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Which restore points a run sets aside before it restores: the damaged ones newer than the newest
 * intact one, read with Flink's own reader.
 */
class DamagedRestorePointsTest {

    @TempDir Path dir;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    @Test
    void aTruncatedNewestSavepointIsMovedAsideAndTheCheckpointBeforeItIsRestored()
            throws IOException {
        CheckpointLayout layout =
                new CheckpointLayout(Storage.location(dir.resolve("cp").toFile()));
        Path older =
                restorePoint(
                        Storage.localFile(layout.checkpointsOfJob("job-a"), "a test file")
                                .toPath()
                                .resolve("chk-3"),
                        1000);
        Path newer =
                restorePoint(
                        Storage.localFile(layout.savepoints(), "a test file")
                                .toPath()
                                .resolve("savepoint-x"),
                        2000);
        truncate(newer.resolve("_metadata"));

        damaged(layout).setAside();

        assertThat(new RestorePoints(layout).all())
                .containsExactly(RestorePoints.location(older.toFile()));
        assertThat(
                        Storage.localFile(layout.damaged(), "a test file")
                                .toPath()
                                .resolve("savepoint-x/_metadata"))
                .exists();
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains(newer.resolve("_metadata") + " cannot be read (truncated")
                .contains(
                        "moved to "
                                + Storage.localFile(layout.damaged(), "a test file")
                                        .toPath()
                                        .resolve("savepoint-x"))
                .contains("Restoring from the previous restore point, " + older);
    }

    @Test
    void withNoIntactRestorePointTheRunStopsNamingTheFileAndReset() throws IOException {
        CheckpointLayout layout =
                new CheckpointLayout(Storage.location(dir.resolve("cp").toFile()));
        Path only =
                restorePoint(
                        Storage.localFile(layout.checkpointsOfJob("job-a"), "a test file")
                                .toPath()
                                .resolve("chk-3"),
                        1000);
        Files.writeString(only.resolve("_metadata"), "not a checkpoint");

        assertThatThrownBy(() -> damaged(layout).setAside())
                .isInstanceOf(QueryException.class)
                .hasMessageContaining(only.resolve("_metadata") + " cannot be read")
                .hasMessageContaining(
                        "moved to "
                                + Storage.localFile(layout.damaged(), "a test file")
                                        .toPath()
                                        .resolve("job-a-chk-3"))
                .hasMessageContaining("'reset bronze'");
        assertThat(new RestorePoints(layout).all()).isEmpty();
    }

    @Test
    void intactRestorePointsStayWhereTheyAreAndNothingIsSaid() throws IOException {
        CheckpointLayout layout =
                new CheckpointLayout(Storage.location(dir.resolve("cp").toFile()));
        Path checkpoint =
                restorePoint(
                        Storage.localFile(layout.checkpointsOfJob("job-a"), "a test file")
                                .toPath()
                                .resolve("chk-3"),
                        1000);
        Path savepoint =
                restorePoint(
                        Storage.localFile(layout.savepoints(), "a test file")
                                .toPath()
                                .resolve("savepoint-x"),
                        2000);

        damaged(layout).setAside();

        assertThat(new RestorePoints(layout).all())
                .containsExactly(
                        RestorePoints.location(checkpoint.toFile()),
                        RestorePoints.location(savepoint.toFile()));
        assertThat(Storage.localFile(layout.damaged(), "a test file").toPath()).doesNotExist();
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    private DamagedRestorePoints damaged(CheckpointLayout layout) {
        return new DamagedRestorePoints(
                layout,
                new RestorePoints(layout),
                "bronze",
                new PrintStream(printed, true, StandardCharsets.UTF_8));
    }

    /** A restore point whose {@code _metadata} Flink can read, completed at {@code millis}. */
    private static Path restorePoint(Path folder, long millis) throws IOException {
        Files.createDirectories(folder);
        Path metadata = folder.resolve("_metadata");
        try (OutputStream out = Files.newOutputStream(metadata)) {
            Checkpoints.storeCheckpointMetadata(
                    new CheckpointMetadata(3, List.of(), List.of()), out);
        }
        Files.setLastModifiedTime(metadata, FileTime.fromMillis(millis));
        return folder;
    }

    private static void truncate(Path file) throws IOException {
        FileTime time = Files.getLastModifiedTime(file);
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length / 2));
        Files.setLastModifiedTime(file, time);
    }
}
