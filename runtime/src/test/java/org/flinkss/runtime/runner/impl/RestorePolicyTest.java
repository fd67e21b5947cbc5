package org.flinkss.runtime.runner.impl;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.assertj.core.api.Assertions.assertThat;

/** Which state a run restores when {@code flink run -s} names a savepoint. */
class RestorePolicyTest {

    @TempDir Path dir;

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

    private CheckpointLayout layout;
    private RestorePoints points;

    private Path restore(@Nullable Configuration flinkRunClient) {
        return new RestorePolicy(points, layout.location(), flinkRunClient, out)
                .choose()
                .map(p -> Storage.localFile(p, "a restore point").toPath())
                .orElse(null);
    }

    private void checkpointIn(String folder) {
        layout = new CheckpointLayout(Storage.location(dir.resolve(folder).toFile()));
        points = new RestorePoints(layout);
    }

    @Test
    void withoutFlinkRunTheCheckpointDecides() throws IOException {
        checkpointIn("cp");
        Path own =
                savepoint(
                        Storage.localFile(layout.savepoints(), "a test file")
                                .toPath()
                                .resolve("savepoint-own"),
                        1000);

        assertThat(restore(null)).isEqualTo(own);
        assertThat(restore(new Configuration())).isEqualTo(own);
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void anOlderSavepointGivenWithSIsIgnored() throws IOException {
        checkpointIn("cp");
        Path older = savepoint(dir.resolve("elsewhere/savepoint-old"), 1000);
        Path own =
                savepoint(
                        Storage.localFile(layout.savepoints(), "a test file")
                                .toPath()
                                .resolve("savepoint-own"),
                        2000);

        assertThat(restore(given(older.toUri().toString()))).isEqualTo(own);
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("ignoring -s")
                .contains("would process committed batches again");
    }

    @Test
    void aNewerSavepointGivenWithSIsTaken() throws IOException {
        checkpointIn("cp");
        savepoint(
                Storage.localFile(layout.savepoints(), "a test file")
                        .toPath()
                        .resolve("savepoint-own"),
                1000);
        Path newer = savepoint(dir.resolve("elsewhere/savepoint-new"), 2000);

        // As flink run passes it: a path without a scheme, or the _metadata file itself.
        assertThat(restore(given(newer.toString()))).isEqualTo(newer);
        assertThat(restore(given(newer.resolve("_metadata").toString()))).isEqualTo(newer);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("restoring from -s");
    }

    @Test
    void aFirstRunTakesTheGivenSavepointAndIgnoresAMissingOne() throws IOException {
        checkpointIn("cp");
        Path given = savepoint(dir.resolve("elsewhere/savepoint-x"), 1000);

        assertThat(restore(given(given.toString()))).isEqualTo(given);
        assertThat(restore(given(dir.resolve("nothing-here").toString()))).isNull();
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("not a savepoint folder with a _metadata file");
    }

    @Test
    void theOriginalOfAnAdoptedSavepointGivenWithSIsTheCopyInTheCheckpoint() throws IOException {
        checkpointIn("cp");
        savepoint(
                Storage.localFile(layout.savepoints(), "a test file")
                        .toPath()
                        .resolve("savepoint-own"),
                1000);
        Path external = savepoint(dir.resolve("elsewhere/savepoint-ext"), 2000);
        Path adopted =
                Storage.localFile(points.adopt(Storage.location(external.toFile())), "a test file")
                        .toPath();
        Files.setLastModifiedTime(adopted.resolve("_metadata"), FileTime.fromMillis(2000));

        assertThat(restore(given(external.toString()))).isEqualTo(adopted);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("already in the checkpoint");
    }

    @Test
    void aLocationOnAnotherFileSystemIsNotLocal() {
        assertThat(RestorePolicy.localPath("s3://bucket/savepoint-1")).isNull();
        assertThat(RestorePolicy.localPath("file:/tmp/a/../savepoint-1"))
                .isEqualTo(new File("/tmp/savepoint-1"));
        assertThat(RestorePolicy.localPath("relative/savepoint-1")).isAbsolute();
    }

    private static Configuration given(String path) {
        Configuration conf = new Configuration();
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, path);
        return conf;
    }

    static Path savepoint(Path folder, long mtimeMillis) throws IOException {
        Files.createDirectories(folder);
        Path metadata = Files.writeString(folder.resolve("_metadata"), "x");
        Files.setLastModifiedTime(metadata, FileTime.fromMillis(mtimeMillis));
        return folder;
    }
}
