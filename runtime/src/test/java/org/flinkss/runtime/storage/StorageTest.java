package org.flinkss.runtime.storage;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Storage} on the local disk; {@code StorageS3ITCase} (jobs) runs the same on S3. */
class StorageTest {

    @TempDir java.nio.file.Path tmp;

    @Test
    void plainPathsAndFileUrisAreTheLocalDiskAndS3UrisStayAsGiven() {
        Path plain = Storage.location(tmp.resolve("base").toString());
        assertThat(plain.toUri().getScheme()).isEqualTo("file");
        assertThat(Storage.isLocal(plain)).isTrue();
        assertThat(Storage.localFile(plain, "base")).isEqualTo(tmp.resolve("base").toFile());
        assertThat(Storage.location(tmp.resolve("base").toUri().toString())).isEqualTo(plain);
        assertThat(Storage.location("relative/dir").toUri().getPath())
                .isEqualTo(new File("relative/dir").getAbsoluteFile().toURI().getPath());

        Path s3 = Storage.location("s3://flinkss/x/y");
        assertThat(s3.toUri().toString()).isEqualTo("s3://flinkss/x/y");
        assertThat(Storage.isObjectStore(s3)).isTrue();
        assertThat(Storage.isLocal(s3)).isFalse();
        assertThatThrownBy(() -> Storage.localFile(s3, "the SQLite file"))
                .hasMessageContaining("the SQLite file must be on the local disk")
                .hasMessageContaining("s3://flinkss/x/y");
    }

    @Test
    void replaceWritesWholeFilesAndLeavesNoTemporaryFileBehind() throws Exception {
        Path meta = Storage.location(tmp.resolve("cp/metadata.json").toFile());
        assertThat(Storage.exists(meta)).isFalse();
        Storage.replaceText(meta, "{\"id\":1}");
        Storage.replaceText(meta, "{\"id\":2}");
        assertThat(Storage.readText(meta)).isEqualTo("{\"id\":2}");
        try (var children = Files.list(tmp.resolve("cp"))) {
            assertThat(children.map(p -> p.getFileName().toString()))
                    .containsExactly("metadata.json");
        }
    }

    @Test
    void listsChildrenAndDeletesTrees() throws Exception {
        Path cp = Storage.location(tmp.resolve("cp").toFile());
        assertThat(Storage.list(cp)).isEmpty();
        Storage.replaceText(new Path(cp, "metadata.json"), "{}");
        Storage.replaceText(new Path(cp, "offsets/0"), "a");
        List<String> names = new ArrayList<>();
        for (FileStatus child : Storage.list(cp)) {
            names.add(child.getPath().getName() + (child.isDir() ? "/" : ""));
        }
        assertThat(names).containsExactlyInAnyOrder("metadata.json", "offsets/");
        Storage.deleteTree(cp);
        assertThat(Files.exists(tmp.resolve("cp"))).isFalse();
        Storage.deleteTree(cp); // nothing there: no error
    }

    @Test
    void createIfAbsentRefusesAnExistingFileAndLeavesItUnchanged() throws Exception {
        Path entry = Storage.location(tmp.resolve("_delta_log/00000000000000000000.json").toFile());
        assertThat(Storage.createIfAbsent(entry, bytes("first"))).isTrue();
        assertThat(Storage.createIfAbsent(entry, bytes("second"))).isFalse();
        assertThat(Storage.readText(entry)).isEqualTo("first");
        try (var children = Files.list(tmp.resolve("_delta_log"))) {
            assertThat(children.count()).as("no temporary file left").isEqualTo(1);
        }
    }

    @Test
    void ofWritersRacingForOneFileExactlyOneWinsEveryRound() throws Exception {
        int writers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int round = 0; round < 50; round++) {
                Path file = Storage.location(tmp.resolve("race/" + round).toFile());
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Boolean>> results = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    byte[] content = bytes("writer " + w);
                    results.add(
                            pool.submit(
                                    () -> {
                                        go.await();
                                        return Storage.createIfAbsent(file, content);
                                    }));
                }
                go.countDown();
                List<Integer> winners = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    if (results.get(w).get()) {
                        winners.add(w);
                    }
                }
                assertThat(winners).as("winners of round %d", round).hasSize(1);
                assertThat(Storage.readText(file)).isEqualTo("writer " + winners.get(0));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void listFromReturnsTheFilesAtOrAfterANameInOrder() throws Exception {
        java.nio.file.Path log = Files.createDirectories(tmp.resolve("_delta_log"));
        for (int v = 0; v < 30; v++) {
            Files.writeString(log.resolve(String.format("%020d.json", v)), "v" + v);
        }
        Files.writeString(log.resolve(String.format("%020d.checkpoint.parquet", 20)), "cp");
        Files.createDirectories(log.resolve(String.format("%020d.folder", 25)));
        Path folder = Storage.location(log.toFile());

        List<String> names = new ArrayList<>();
        for (ListedFile f : Storage.listFrom(folder, String.format("%020d.", 20))) {
            names.add(f.name());
            assertThat(f.length()).isEqualTo(Files.size(log.resolve(f.name())));
            assertThat(f.path()).isEqualTo(new Path(folder, f.name()));
        }
        List<String> expected = new ArrayList<>();
        expected.add(String.format("%020d.checkpoint.parquet", 20));
        for (int v = 20; v < 30; v++) {
            expected.add(String.format("%020d.json", v));
        }
        expected.sort(null);
        assertThat(names).as("files only, from the name on, sorted").isEqualTo(expected);
        assertThat(Storage.listFrom(folder, "zzz")).isEmpty();
        assertThatThrownBy(
                        () -> Storage.listFrom(Storage.location(tmp.resolve("none").toFile()), ""))
                .isInstanceOf(java.io.FileNotFoundException.class)
                .hasMessageContaining("none");
    }
}
