package org.flinkss.runtime.source.files;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which files a source folder's batches read: links are followed as Spark follows them (measured on
 * Spark 4.0.4: a linked landing folder, and linked files and folders in it, are read; a link to
 * nothing is not), and a link back to an ancestor is read once, not once per level.
 */
class FilePlannerTest {

    @TempDir Path dir;

    private static final String LINE = "{\"event_id\":1}\n";

    /** A file with a modification time, so that "oldest first" is the order written here. */
    private static Path file(Path path, long minute) throws IOException {
        Files.createDirectories(path.getParent());
        Files.writeString(path, LINE);
        Files.setLastModifiedTime(path, FileTime.fromMillis(minute * 60_000));
        return path;
    }

    /** The keys (paths relative to the root) of every batch of one planner, all in one batch. */
    private static List<String> plannedKeys(Path root) throws IOException {
        FilePlanner planner = new FilePlanner(Storage.location(root.toFile()), ".json");
        planner.restore(null);
        planner.refreshTarget();
        List<String> keys = new ArrayList<>();
        for (FileSplit split : planner.nextBatch(0, ReadLimit.none())) {
            keys.add(split.key());
        }
        return keys;
    }

    @Test
    void aFolderGivenAsAFlinkPathIsPlannedAsTheLocalPathWithTheSameSplits() throws IOException {
        Path root = dir.resolve("events");
        file(root.resolve("batch_2/part-0.json"), 2);
        file(root.resolve("batch_1/part-0.json"), 1);
        file(root.resolve("_staging-x/part-0.json"), 3);
        FilePlanner local = new FilePlanner(Storage.location(root.toFile()), ".json");
        FilePlanner uri = new FilePlanner(Storage.location(root.toFile()), ".json");
        for (FilePlanner planner : List.of(local, uri)) {
            planner.restore(null);
            planner.refreshTarget();
        }

        List<FileSplit> fromUri = uri.nextBatch(0, ReadLimit.none());
        assertThat(fromUri)
                .extracting(FileSplit::location)
                .containsExactly(
                        root.resolve("batch_1/part-0.json").toString(),
                        root.resolve("batch_2/part-0.json").toString());
        assertThat(fromUri.toString()).isEqualTo(local.nextBatch(0, ReadLimit.none()).toString());
        assertThat(uri.describe()).isEqualTo(local.describe()).isEqualTo(root.toUri().toString());
        assertThat(Storage.localFile(uri.location(), "a test file").toPath()).isEqualTo(root);
    }

    @Test
    void aBatchIsReadAsSparksFileScanReadsItLargestFirstThenOldestFirst() throws IOException {
        Path root = dir.resolve("events");
        file(root.resolve("batch_1/small.json"), 1);
        Files.writeString(file(root.resolve("batch_2/large.json"), 2), LINE.repeat(3));
        Files.setLastModifiedTime(root.resolve("batch_2/large.json"), FileTime.fromMillis(120_000));
        file(root.resolve("batch_3/small.json"), 3);
        Files.writeString(file(root.resolve("batch_4/large.json"), 4), LINE.repeat(3));
        Files.setLastModifiedTime(root.resolve("batch_4/large.json"), FileTime.fromMillis(240_000));
        FilePlanner planner = new FilePlanner(Storage.location(root.toFile()), ".json");
        planner.restore(null);
        planner.refreshTarget();

        // Which files: the three oldest (Spark's file stream source); their order: as its scan
        // (FileSourceScanExec sorts a batch's files by size, largest first, a stable sort).
        List<FileSplit> batch = planner.nextBatch(0, ReadLimit.none().withMaxFilesPerTrigger(3));

        assertThat(batch)
                .extracting(FileSplit::key)
                .containsExactly("batch_2/large.json", "batch_1/small.json", "batch_3/small.json");
        assertThat(batch)
                .extracting(FileSplit::sizeInBytes)
                .containsExactly(3L * LINE.length(), (long) LINE.length(), (long) LINE.length());
    }

    /** A real-time look lists the folder: cheap on the local disk, requests on an object store. */
    @Test
    void aRealTimeRunLooksAtALocalFolderEvery10MsAndAtAnObjectStoreOnceASecond() {
        FilePlanner local = new FilePlanner(Storage.location(dir.toFile()), ".json");
        FilePlanner s3 = new FilePlanner(Storage.location("s3://bucket/landing/events"), ".json");

        assertThat(local.realTimeLook()).isEqualTo(Duration.ofMillis(10));
        assertThat(s3.realTimeLook()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void anObjectKeyIsHiddenWhenAnyOfItsPartsIs() {
        assertThat(FilePlanner.hiddenKey("batch_1/part-0.json")).isFalse();
        assertThat(FilePlanner.hiddenKey("_staging-1/part-0.json")).isTrue();
        assertThat(FilePlanner.hiddenKey("batch_1/_SUCCESS")).isTrue();
        assertThat(FilePlanner.hiddenKey("batch_1/.part-0.json.crc")).isTrue();
        assertThat(FilePlanner.hiddenKey("a/.hidden/part-0.json")).isTrue();
    }

    @Test
    void aLandingFolderThatIsALinkIsRead() throws IOException {
        // The case: <base>/events is a link to a folder of files.
        Path real = dir.resolve("real");
        for (int i = 1; i <= 200; i++) {
            file(real.resolve("batch_" + i).resolve("part-0.json"), i);
        }
        Path events = Files.createSymbolicLink(dir.resolve("base-events"), real);

        List<String> keys = plannedKeys(events);

        assertThat(keys).hasSize(200);
        assertThat(keys.get(0)).isEqualTo("batch_1/part-0.json");
        assertThat(keys.get(199)).isEqualTo("batch_200/part-0.json");
    }

    @Test
    void linkedFilesAndFoldersInsideAreReadByTheirPathThroughTheLink() throws IOException {
        Path root = dir.resolve("events");
        file(root.resolve("batch_1/a.json"), 1);
        Path elsewhere = dir.resolve("elsewhere");
        Path linkedFile = file(elsewhere.resolve("b.json"), 2);
        file(elsewhere.resolve("more/c.json"), 3);
        Files.createSymbolicLink(root.resolve("batch_1/b.json"), linkedFile);
        Files.createSymbolicLink(root.resolve("batch_2"), elsewhere.resolve("more"));

        assertThat(plannedKeys(root))
                .containsExactly("batch_1/a.json", "batch_1/b.json", "batch_2/c.json");
    }

    @Test
    void aLinkBackToAnAncestorIsNotFollowedSoEachFileIsReadOnce() throws IOException {
        Path root = dir.resolve("events");
        file(root.resolve("batch_1/a.json"), 1);
        file(root.resolve("batch_2/b.json"), 2);
        Path loop = Files.createSymbolicLink(root.resolve("batch_2/loop"), root);

        LocalFolderWalk.Listing listing = LocalFolderWalk.walk(root, ".json");

        assertThat(plannedKeys(root)).containsExactly("batch_1/a.json", "batch_2/b.json");
        assertThat(listing.cycles()).containsExactly(loop);
    }

    @Test
    void aLinkToNothingIsNotReadAndIsReported() throws IOException {
        Path root = dir.resolve("events");
        file(root.resolve("batch_1/a.json"), 1);
        Path broken =
                Files.createSymbolicLink(
                        root.resolve("batch_1/gone.json"), dir.resolve("nowhere.json"));

        LocalFolderWalk.Listing listing = LocalFolderWalk.walk(root, ".json");

        assertThat(listing.files()).containsExactly(root.resolve("batch_1/a.json"));
        assertThat(listing.brokenLinks()).containsExactly(broken);
    }

    @Test
    void otherNamesAreNotReadAsWithSparksPathGlobFilterAndAreReported() throws IOException {
        // The course reads with pathGlobFilter '*.json': Spark 4.0.4 leaves out a.json.gz (and
        // any name that does not end in .json) and reads nothing hidden.
        Path root = dir.resolve("events");
        Path plain = file(root.resolve("batch_1/a.json"), 1);
        Path gz = file(root.resolve("batch_1/a.json.gz"), 1);
        Path upper = file(root.resolve("batch_1/b.JSON"), 1);
        file(root.resolve("batch_1/_SUCCESS"), 1);
        file(root.resolve("batch_1/.a.json.crc"), 1);
        file(root.resolve("_staging/c.json"), 1);

        LocalFolderWalk.Listing listing = LocalFolderWalk.walk(root, ".json");

        assertThat(listing.files()).containsExactly(plain);
        assertThat(listing.otherNames()).containsExactly(gz, upper);
    }
}
