package org.flinkss.jobs;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.flinkss.runtime.storage.Storage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link Storage} on a real S3 server (S3Proxy through {@code scripts/s3}, Flink's S3A plugin): the
 * same operations as on local disk ({@code StorageTest}), and create-if-absent holding when writers
 * race for one key.
 */
@Tag("ports")
class StorageS3ITCase {

    private static S3TestServer s3;

    @BeforeAll
    static void startS3() {
        s3 = S3TestServer.start("storage-s3-it");
    }

    @AfterAll
    static void stopS3() {
        if (s3 != null) {
            s3.close();
        }
    }

    @BeforeEach
    void needsS3() {
        assumeTrue(
                s3 != null,
                "StorageS3ITCase skipped: scripts/s3 needs curl (apt-get install curl)");
    }

    @Test
    void writesReadsReplacesListsAndDeletesObjects() throws Exception {
        Path base = s3.freshPrefix("ops");
        Path meta = new Path(base, "cp/metadata.json");
        assertThat(Storage.exists(meta)).isFalse();
        assertThat(Storage.list(new Path(base, "cp"))).isEmpty();

        Storage.replaceText(meta, "{\"id\":1}");
        assertThat(Storage.readText(meta)).isEqualTo("{\"id\":1}");
        Storage.replaceText(meta, "{\"id\":2}");
        assertThat(Storage.readText(meta)).isEqualTo("{\"id\":2}");
        assertThat(s3.objectFile(meta)).hasContent("{\"id\":2}");

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
        Path entry = new Path(s3.freshPrefix("cia"), "_delta_log/00000000000000000000.json");
        assertThat(Storage.createIfAbsent(entry, bytes("first"))).isTrue();
        assertThat(Storage.createIfAbsent(entry, bytes("second"))).isFalse();
        assertThat(Storage.readText(entry)).isEqualTo("first");
    }

    @Test
    void ofWritersRacingForOneKeyExactlyOneWinsEveryRound() throws Exception {
        int writers = 8;
        int rounds = 25;
        Path base = s3.freshPrefix("race");
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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
