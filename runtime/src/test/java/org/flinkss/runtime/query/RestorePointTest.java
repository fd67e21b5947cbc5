package org.flinkss.runtime.query;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointDir;
import org.flinkss.runtime.checkpoint.CheckpointLayout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which state a run restores when {@code flink run -s} names a savepoint, and adopted savepoints.
 */
class RestorePointTest {

    @TempDir Path dir;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

    @Test
    void withoutFlinkRunTheCheckpointDecides() throws IOException {
        CheckpointDir cp = new CheckpointDir(new CheckpointLayout(dir.resolve("cp")));
        Path own = savepoint(cp.savepoints().resolve("savepoint-own"), 1000);

        assertThat(QueryRunner.restorePoint(cp, null, out)).contains(own);
        assertThat(QueryRunner.restorePoint(cp, new Configuration(), out)).contains(own);
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void anOlderSavepointGivenWithSIsIgnored() throws IOException {
        CheckpointDir cp = new CheckpointDir(new CheckpointLayout(dir.resolve("cp")));
        Path older = savepoint(dir.resolve("elsewhere/savepoint-old"), 1000);
        Path own = savepoint(cp.savepoints().resolve("savepoint-own"), 2000);

        assertThat(QueryRunner.restorePoint(cp, given(older.toUri().toString()), out))
                .contains(own);
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("ignoring -s")
                .contains("would process committed batches again");
    }

    @Test
    void aNewerSavepointGivenWithSIsTaken() throws IOException {
        CheckpointDir cp = new CheckpointDir(new CheckpointLayout(dir.resolve("cp")));
        savepoint(cp.savepoints().resolve("savepoint-own"), 1000);
        Path newer = savepoint(dir.resolve("elsewhere/savepoint-new"), 2000);

        // As flink run passes it: a path without a scheme, or the _metadata file itself.
        assertThat(QueryRunner.restorePoint(cp, given(newer.toString()), out)).contains(newer);
        assertThat(QueryRunner.restorePoint(cp, given(newer.resolve("_metadata").toString()), out))
                .contains(newer);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("restoring from -s");
    }

    @Test
    void aFirstRunTakesTheGivenSavepointAndIgnoresAMissingOne() throws IOException {
        CheckpointDir cp = new CheckpointDir(new CheckpointLayout(dir.resolve("cp")));
        Path given = savepoint(dir.resolve("elsewhere/savepoint-x"), 1000);

        assertThat(QueryRunner.restorePoint(cp, given(given.toString()), out)).contains(given);
        assertThat(QueryRunner.restorePoint(cp, given(dir.resolve("nothing-here").toString()), out))
                .isEmpty();
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("not a local savepoint folder");
    }

    @Test
    void anAdoptedSavepointIsTheNewestRestorePointAndTheOriginalStays() throws IOException {
        CheckpointDir cp = new CheckpointDir(new CheckpointLayout(dir.resolve("cp")));
        savepoint(cp.savepoints().resolve("savepoint-own"), 2000);
        Path external = savepoint(dir.resolve("elsewhere/savepoint-ext"), 1000);
        Files.writeString(
                Files.createDirectories(external.resolve("sub")).resolve("state"), "rocks");

        Path adopted = cp.adoptSavepoint(external);

        assertThat(adopted).isEqualTo(cp.savepoints().resolve("savepoint-ext"));
        assertThat(adopted.resolve("sub/state")).hasContent("rocks");
        assertThat(external.resolve("_metadata")).exists();
        assertThat(cp.newestRestorePoint()).contains(adopted);
        assertThat(cp.path())
                .isDirectoryNotContaining(p -> p.getFileName().toString().startsWith(".adopting-"));
        // Given with -s afterwards, the original is the same savepoint as the copy.
        assertThat(QueryRunner.restorePoint(cp, given(external.toString()), out)).contains(adopted);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("already in the checkpoint");
        // One inside savepoints/ already is not copied again.
        assertThat(cp.adoptSavepoint(adopted)).isEqualTo(adopted);
    }

    private static Configuration given(String path) {
        Configuration conf = new Configuration();
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, path);
        return conf;
    }

    private static Path savepoint(Path folder, long mtimeMillis) throws IOException {
        Files.createDirectories(folder);
        Path metadata = Files.writeString(folder.resolve("_metadata"), "x");
        Files.setLastModifiedTime(metadata, FileTime.fromMillis(mtimeMillis));
        return folder;
    }
}
