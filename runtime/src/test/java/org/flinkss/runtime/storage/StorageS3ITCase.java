package org.flinkss.runtime.storage;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.flinkss.runtime.testing.S3TestServer;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Storage} on a real S3 server (S3Proxy through {@code scripts/s3}, Flink's S3A plugin): the
 * same operations as on local disk ({@code StorageTest}), and create-if-absent holding when writers
 * race for one key.
 */
@Tag("ports")
class StorageS3ITCase {

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("storage-s3-it");

    @Test
    void writesReadsReplacesListsAndDeletesObjects() throws Exception {
        Path base = S3.server().freshPrefix("ops");
        Path meta = new Path(base, "cp/metadata.json");
        assertThat(Storage.exists(meta)).isFalse();
        assertThat(Storage.list(new Path(base, "cp"))).isEmpty();

        Storage.replaceText(meta, "{\"id\":1}");
        assertThat(Storage.readText(meta)).isEqualTo("{\"id\":1}");
        Storage.replaceText(meta, "{\"id\":2}");
        assertThat(Storage.readText(meta)).isEqualTo("{\"id\":2}");
        assertThat(S3.server().objectFile(meta)).hasContent("{\"id\":2}");

        Storage.replaceText(new Path(base, "cp/offsets/0"), "a");
        Storage.replaceText(new Path(base, "cp/offsets/1"), "b");
        List<String> names = new ArrayList<>();
        for (FileStatus child : Storage.list(new Path(base, "cp"))) {
            names.add(child.getPath().getName() + (child.isDir() ? "/" : ""));
        }
        assertThat(names).containsExactlyInAnyOrder("metadata.json", "offsets/");

        Storage.deleteTree(new Path(base, "cp"));
        assertThat(Storage.exists(meta)).isFalse();
        assertThat(Storage.list(new Path(base, "cp/offsets"))).isEmpty();
    }

    @Test
    void createIfAbsentRefusesAnExistingKeyAndLeavesItUnchanged() throws Exception {
        Path entry =
                new Path(S3.server().freshPrefix("cia"), "_delta_log/00000000000000000000.json");
        assertThat(Storage.createIfAbsent(entry, bytes("first"))).isTrue();
        assertThat(Storage.createIfAbsent(entry, bytes("second"))).isFalse();
        assertThat(Storage.readText(entry)).isEqualTo("first");
    }

    @Test
    void ofWritersRacingForOneKeyExactlyOneWinsEveryRound() throws Exception {
        int writers = 8;
        int rounds = 25;
        Path base = S3.server().freshPrefix("race");
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int round = 0; round < rounds; round++) {
                Path key = new Path(base, "version-" + round + ".json");
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Boolean>> results = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    byte[] content = bytes("writer " + w);
                    results.add(
                            pool.submit(
                                    () -> {
                                        go.await();
                                        return Storage.createIfAbsent(key, content);
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
                assertThat(Storage.readText(key))
                        .as("the object holds the winner's content")
                        .isEqualTo("writer " + winners.get(0));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void listFromStartsAtTheNameAndPagesThroughLongListings() throws Exception {
        Path log = new Path(S3.server().freshPrefix("listfrom"), "_delta_log");
        assertThatThrownBy(() -> Storage.listFrom(log, ""))
                .as("nothing under the prefix: no folder")
                .isInstanceOf(java.io.FileNotFoundException.class);
        // 2,500 versions, two objects each, placed in the server's filesystem backend directly
        // (5,000 PUTs would take a minute).
        int versions = 2_500;
        for (int v = 0; v < versions; v++) {
            for (String name :
                    List.of(String.format("%020d.json", v), String.format("%020d.crc", v))) {
                java.nio.file.Path file = S3.server().objectFile(new Path(log, name));
                java.nio.file.Files.createDirectories(file.getParent());
                java.nio.file.Files.writeString(file, "v" + v);
            }
        }
        Storage.replaceText(new Path(log, "sub/nested.json"), "not a file of the log");

        List<String> tail = names(Storage.listFrom(log, String.format("%020d.", versions - 3)));
        assertThat(tail)
                .containsExactly(
                        String.format("%020d.crc", versions - 3),
                        String.format("%020d.json", versions - 3),
                        String.format("%020d.crc", versions - 2),
                        String.format("%020d.json", versions - 2),
                        String.format("%020d.crc", versions - 1),
                        String.format("%020d.json", versions - 1));

        List<String> all = names(Storage.listFrom(log, String.format("%020d.", 100)));
        assertThat(all).as("more than two pages of 1,000").hasSize(2 * (versions - 100));
        assertThat(all).isSorted();
        assertThat(all.get(0)).isEqualTo(String.format("%020d.crc", 100));
        assertThat(all).doesNotContain("sub", "nested.json");
        assertThat(Storage.listFrom(log, String.format("%020d.json", 7)).get(0).length())
                .isEqualTo(2);
    }

    private static List<String> names(List<ListedFile> files) {
        List<String> names = new ArrayList<>();
        for (ListedFile f : files) {
            names.add(f.name());
        }
        return names;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * S3A uploads from a thread pool whose threads are made on first use and inherit the writer's
     * context class loader. A task thread's is its job's user-code class loader, closed when the
     * job ends, so a later job's upload on such a thread failed with "Trying to access closed
     * classloader" (seen once in RunS3ITCase). Writes go through {@link Storage#create}, whose
     * stream runs with the plugin's class loader: no thread S3A makes keeps the writer's.
     */
    @Test
    void uploadThreadsDoNotKeepTheWritersClassLoader() throws Exception {
        // A bucket of its own: a new S3A file system, whose upload pool has no thread yet.
        String bucket = "ctx-" + UUID.randomUUID().toString().substring(0, 8);
        Path object = new Path("s3://" + bucket + "/batch_1/part.json");
        Files.createDirectories(S3.server().objectFile(object).getParent().getParent());
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());

        URLClassLoader job = new URLClassLoader(new URL[0], getClass().getClassLoader());
        Thread current = Thread.currentThread();
        ClassLoader original = current.getContextClassLoader();
        current.setContextClassLoader(job);
        try {
            Storage.replaceText(object, "{\"id\":1}");
        } finally {
            current.setContextClassLoader(original);
            job.close();
        }

        List<Thread> made = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!before.contains(t) && t.isAlive()) {
                made.add(t);
            }
        }
        assertThat(made).as("threads S3A made for the file system and the upload").isNotEmpty();
        assertThat(made)
                .allSatisfy(
                        t ->
                                assertThat(t.getContextClassLoader())
                                        .as("context class loader of %s", t.getName())
                                        .isNotSameAs(job));
        assertThat(Storage.readText(object)).isEqualTo("{\"id\":1}");
    }
}
