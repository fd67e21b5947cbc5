package org.flinkss.runtime.source.files;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A file source's batches under the run's limits: files, bytes (one file at least). */
class FilePlannerReadLimitTest {

    @TempDir Path dir;

    private FilePlanner plannerOver(int files, int bytesEach) throws IOException {
        for (int i = 0; i < files; i++) {
            Path f = Files.writeString(dir.resolve("part-" + i + ".json"), "x".repeat(bytesEach));
            Files.setLastModifiedTime(f, FileTime.fromMillis(1000L * (i + 1)));
        }
        FilePlanner planner = new FilePlanner(Storage.location(dir.toFile()), ".json");
        planner.restore(null);
        planner.refreshTarget();
        return planner;
    }

    private static List<String> keys(List<FileSplit> batch) {
        return batch.stream().map(FileSplit::key).toList();
    }

    @Test
    void withoutALimitOneBatchTakesEveryFileOldestFirst() throws IOException {
        FilePlanner planner = plannerOver(3, 10);

        assertThat(keys(planner.nextBatch(0, ReadLimit.none())))
                .containsExactly("part-0.json", "part-1.json", "part-2.json");
    }

    @Test
    void maxFilesAndMaxBytesBothBoundABatch() throws IOException {
        FilePlanner planner = plannerOver(5, 10);

        assertThat(keys(planner.nextBatch(0, ReadLimit.none().withMaxFilesPerTrigger(2))))
                .containsExactly("part-0.json", "part-1.json");
        assertThat(keys(planner.nextBatch(0, ReadLimit.none().withMaxBytesPerTrigger(35))))
                .containsExactly("part-0.json", "part-1.json", "part-2.json");
        assertThat(
                        keys(
                                planner.nextBatch(
                                        0,
                                        ReadLimit.none()
                                                .withMaxBytesPerTrigger(35)
                                                .withMaxFilesPerTrigger(1))))
                .containsExactly("part-0.json");
        // A batch takes one file at least, even one larger than the byte limit; Kafka's limit
        // means nothing here.
        assertThat(
                        keys(
                                planner.nextBatch(
                                        0,
                                        ReadLimit.none()
                                                .withMaxBytesPerTrigger(1)
                                                .withMaxOffsetsPerTrigger(1))))
                .containsExactly("part-0.json");
    }

    @Test
    void committedFilesAreNotReadAgain() throws IOException {
        FilePlanner planner = plannerOver(3, 10);
        ReadLimit two = ReadLimit.none().withMaxFilesPerTrigger(2);

        planner.commit(planner.nextBatch(0, two));

        assertThat(keys(planner.nextBatch(1, two))).containsExactly("part-2.json");
    }
}
