package org.flinkss.runtime.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        CheckpointLayout layout = new CheckpointLayout(dir.resolve("cp"));
        RestorePoints points = new RestorePoints(layout);
        assertThat(points.newest()).isEmpty();

        Path savepoint = folder(layout.savepoints().resolve("savepoint-1"), 1000);
        Path checkpoint = folder(layout.checkpointsOfJob("job-a").resolve("chk-7"), 2000);
        // Step 2: a checkpoint folder without _metadata is incomplete, not a restore point.
        Files.createDirectories(layout.checkpointsOfJob("job-a").resolve("chk-8"));

        assertThat(points.all()).containsExactly(savepoint, checkpoint);
        assertThat(points.newest()).contains(checkpoint);
        assertThat(points.completedCheckpoints("job-a")).containsExactly(7L);
        assertThat(points.completedCheckpoints("job-b")).isEmpty();
    }

    @Test
    void anAdoptedSavepointIsTheNewestRestorePointAndTheOriginalStays() throws IOException {
        CheckpointLayout layout = new CheckpointLayout(dir.resolve("cp"));
        RestorePoints points = new RestorePoints(layout);
        folder(layout.savepoints().resolve("savepoint-own"), 2000);
        Path external = folder(dir.resolve("elsewhere/savepoint-ext"), 1000);
        Files.writeString(
                Files.createDirectories(external.resolve("sub")).resolve("state"), "rocks");

        Path adopted = points.adopt(external);

        assertThat(adopted).isEqualTo(layout.savepoints().resolve("savepoint-ext"));
        assertThat(adopted.resolve("sub/state")).hasContent("rocks");
        assertThat(external.resolve("_metadata")).exists();
        assertThat(points.newest()).contains(adopted);
        assertThat(layout.dir())
                .isDirectoryNotContaining(p -> p.getFileName().toString().startsWith(".adopting-"));
        // One inside savepoints/ already is not copied again.
        assertThat(points.adopt(adopted)).isEqualTo(adopted);
    }

    @Test
    void pruningKeepsOnlyTheRestorePointTheNextRunNeeds() throws IOException {
        CheckpointLayout layout = new CheckpointLayout(dir.resolve("cp"));
        RestorePoints points = new RestorePoints(layout);
        folder(layout.savepoints().resolve("savepoint-old"), 1000);
        folder(layout.checkpointsOfJob("job-a").resolve("chk-3"), 2000);
        Files.createDirectories(layout.checkpointsOfJob("job-killed"));
        Path keep = folder(layout.savepoints().resolve("savepoint-new"), 3000);

        points.pruneExcept(keep);

        assertThat(points.all()).containsExactly(keep);
        assertThat(layout.checkpoints()).isEmptyDirectory();
    }

    private static Path folder(Path folder, long mtimeMillis) throws IOException {
        Files.createDirectories(folder);
        Path metadata = Files.writeString(folder.resolve("_metadata"), "x");
        Files.setLastModifiedTime(metadata, FileTime.fromMillis(mtimeMillis));
        return folder;
    }
}
