package org.flinkss.runtime.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.assertj.core.api.Assertions.assertThat;

/** A checkpoint directory's restore points: the newest, adopting one from outside, pruning. */
class RestorePointsTest {

    @TempDir Path dir;

    @Test
    void theNewestCheckpointOrSavepointIsRestoredAndAFirstRunHasNone() throws IOException {
        CheckpointLayout layout =
                new CheckpointLayout(Storage.location(dir.resolve("cp").toFile()));
        RestorePoints points = new RestorePoints(layout);
        assertThat(points.newest()).isEmpty();

        Path savepoint =
                folder(
                        Storage.localFile(layout.savepoints(), "a test file")
                                .toPath()
                                .resolve("savepoint-1"),
                        1000);
        Path checkpoint =
                folder(
                        Storage.localFile(layout.checkpointsOfJob("job-a"), "a test file")
                                .toPath()
                                .resolve("chk-7"),
                        2000);
        // Step 2: a checkpoint folder without _metadata is incomplete, not a restore point.
        Files.createDirectories(
                Storage.localFile(layout.checkpointsOfJob("job-a"), "a test file")
                        .toPath()
                        .resolve("chk-8"));

        assertThat(points.all())
                .containsExactly(
                        RestorePoints.location(savepoint.toFile()),
                        RestorePoints.location(checkpoint.toFile()));
        assertThat(points.newest()).contains(RestorePoints.location(checkpoint.toFile()));
        assertThat(points.completedCheckpoints("job-a")).containsExactly(7L);
        assertThat(points.completedCheckpoints("job-b")).isEmpty();
    }

    @Test
    void anAdoptedSavepointIsTheNewestRestorePointAndTheOriginalStays() throws IOException {
        CheckpointLayout layout =
                new CheckpointLayout(Storage.location(dir.resolve("cp").toFile()));
        RestorePoints points = new RestorePoints(layout);
        folder(
                Storage.localFile(layout.savepoints(), "a test file")
                        .toPath()
                        .resolve("savepoint-own"),
                2000);
        Path external = folder(dir.resolve("elsewhere/savepoint-ext"), 1000);
        Files.writeString(
                Files.createDirectories(external.resolve("sub")).resolve("state"), "rocks");

        Path adopted =
                Storage.localFile(points.adopt(Storage.location(external.toFile())), "a test file")
                        .toPath();

        assertThat(adopted)
                .isEqualTo(
                        Storage.localFile(layout.savepoints(), "a test file")
                                .toPath()
                                .resolve("savepoint-ext"));
        assertThat(adopted.resolve("sub/state")).hasContent("rocks");
        assertThat(external.resolve("_metadata")).exists();
        assertThat(points.newest()).contains(RestorePoints.location(adopted.toFile()));
        assertThat(Storage.localFile(layout.location(), "a test file").toPath())
                .isDirectoryNotContaining(p -> p.getFileName().toString().startsWith(".adopting-"));
        // One inside savepoints/ already is not copied again.
        assertThat(points.adopt(RestorePoints.location(adopted.toFile())))
                .isEqualTo(RestorePoints.location(adopted.toFile()));
    }

    @Test
    void pruningKeepsOnlyTheRestorePointTheNextRunNeeds() throws IOException {
        CheckpointLayout layout =
                new CheckpointLayout(Storage.location(dir.resolve("cp").toFile()));
        RestorePoints points = new RestorePoints(layout);
        folder(
                Storage.localFile(layout.savepoints(), "a test file")
                        .toPath()
                        .resolve("savepoint-old"),
                1000);
        folder(
                Storage.localFile(layout.checkpointsOfJob("job-a"), "a test file")
                        .toPath()
                        .resolve("chk-3"),
                2000);
        Files.createDirectories(
                Storage.localFile(layout.checkpointsOfJob("job-killed"), "a test file").toPath());
        Path keep =
                folder(
                        Storage.localFile(layout.savepoints(), "a test file")
                                .toPath()
                                .resolve("savepoint-new"),
                        3000);

        points.pruneExcept(RestorePoints.location(keep.toFile()));

        assertThat(points.all()).containsExactly(RestorePoints.location(keep.toFile()));
        assertThat(Storage.localFile(layout.checkpoints(), "a test file").toPath())
                .isEmptyDirectory();
    }

    private static Path folder(Path folder, long mtimeMillis) throws IOException {
        Files.createDirectories(folder);
        Path metadata = Files.writeString(folder.resolve("_metadata"), "x");
        Files.setLastModifiedTime(metadata, FileTime.fromMillis(mtimeMillis));
        return folder;
    }
}
