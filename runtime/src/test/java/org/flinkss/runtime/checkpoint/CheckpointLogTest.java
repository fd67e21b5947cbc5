package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The generic checkpoint log: add, get, latest and purge before, entries named as the checkpoints
 * of every version hold them, and nothing but its own entries read.
 */
class CheckpointLogTest {

    @TempDir java.nio.file.Path dir;

    private CheckpointLog<Long, SealedBatch> sealed() {
        return new CheckpointLog<>(
                new Path(dir.toUri()),
                CheckpointLayout.SEALED_BATCHES,
                LogCodec.json(SealedBatch.class));
    }

    @Test
    void entriesAreReadBackByKeyInNumberOrderAndTheLatestIsTheHighestKey() throws Exception {
        CheckpointLog<Long, SealedBatch> log = sealed();
        assertThat(log.keys()).as("no folder yet").isEmpty();
        assertThat(log.latest()).isEmpty();
        assertThat(log.get(1L)).isEmpty();

        // Step 1: out of order, and past the digits' width: number order, not name order.
        for (long checkpoint : List.of(12L, 3L, 9L, 1_000_000_000_000L)) {
            log.add(checkpoint, new SealedBatch("events", checkpoint, checkpoint - 1));
        }

        // Step 2: every entry by key, the newest last.
        assertThat(log.keys()).containsExactly(3L, 9L, 12L, 1_000_000_000_000L);
        assertThat(log.get(9L)).contains(new SealedBatch("events", 9, 8));
        assertThat(log.latest())
                .contains(new SealedBatch("events", 1_000_000_000_000L, 999_999_999_999L));
        assertThat(log.all())
                .extracting(SealedBatch::checkpointId)
                .containsExactly(3L, 9L, 12L, 1_000_000_000_000L);
    }

    @Test
    void anEntryKeepsTheFileNameAndContentOfEarlierVersions() throws Exception {
        // Step 1: a record as earlier versions wrote it, by hand.
        Files.createDirectories(dir);
        Files.writeString(
                dir.resolve("000000000007.json"),
                "{\"source\":\"events\",\"checkpointId\":7,\"lastSealed\":2}",
                StandardCharsets.UTF_8);

        // Step 2: read back, and written the same way.
        CheckpointLog<Long, SealedBatch> log = sealed();
        assertThat(log.get(7L)).contains(new SealedBatch("events", 7, 2));
        log.add(8L, new SealedBatch("events", 8, 3));
        assertThat(Files.readString(dir.resolve("000000000008.json")))
                .isEqualTo("{\"source\":\"events\",\"checkpointId\":8,\"lastSealed\":3}");
        assertThat(log.location(8L).getName()).isEqualTo("000000000008.json");
    }

    @Test
    void purgeBeforeRemovesOnlyOlderEntriesAndPurgeTheFolder() throws Exception {
        CheckpointLog<Long, SealedBatch> log = sealed();
        for (long checkpoint = 1; checkpoint <= 5; checkpoint++) {
            log.add(checkpoint, new SealedBatch("events", checkpoint, checkpoint));
        }

        log.purgeBefore(4L);

        assertThat(log.keys()).containsExactly(4L, 5L);
        log.purge();
        assertThat(dir).doesNotExist();
        assertThat(log.keys()).isEmpty();
        log.purgeBefore(10L); // nothing there: nothing to do
    }

    @Test
    void filesThatAreNotEntriesAreNeverRead() throws Exception {
        CheckpointLog<Long, SealedBatch> log = sealed();
        log.add(1L, new SealedBatch("events", 1, 0));
        // A temporary file of a write cut by a kill, and files of nobody's.
        Files.writeString(dir.resolve(".000000000002.json.1234.tmp"), "{\"sour");
        Files.writeString(dir.resolve("notes.txt"), "hello");
        Files.writeString(dir.resolve("000000000003.json.bak"), "x");

        assertThat(log.keys()).containsExactly(1L);
        assertThat(log.all()).hasSize(1);
        log.purgeBefore(5L);
        assertThat(dir.resolve("notes.txt")).as("not the log's").exists();
    }

    @Test
    void aDamagedEntryIsRefusedNamingItsFile() throws Exception {
        CheckpointLog<Long, SealedBatch> log = sealed();
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("000000000004.json"), "{\"source\":\"ev");

        assertThatThrownBy(() -> log.get(4L))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot read " + log.location(4L) + ": ");
    }

    @Test
    void entriesInFoldersAreListedAndRemovedAsFolders() throws Exception {
        CheckpointLog<String, String> log =
                new CheckpointLog<>(
                        new Path(dir.toUri()),
                        EntryNames.named("").inFolders("job.json"),
                        new Text());
        log.add("run-b", "job b");
        log.add("run-a", "job a");
        Files.createDirectories(dir.resolve("run-c")); // killed before it wrote its job

        assertThat(log.location("run-a").toString()).endsWith("/run-a/job.json");
        assertThat(log.keys()).containsExactly("run-a", "run-b", "run-c");
        assertThat(log.all()).containsExactly("job a", "job b");
        assertThat(log.get("run-c")).isEmpty();

        log.remove("run-a");
        assertThat(dir.resolve("run-a")).doesNotExist();
        assertThat(log.keys()).containsExactly("run-b", "run-c");
    }

    @Test
    void namesOfEachLogAreThoseOfEarlierVersions() {
        assertThat(CheckpointLayout.BATCH_PLANS.name(7L)).isEqualTo("0000000000000000007");
        assertThat(CheckpointLayout.SEALED_BATCHES.name(7L)).isEqualTo("000000000007.json");
        assertThat(CheckpointLayout.FRAGMENT_CHECKPOINTS.name(7L)).isEqualTo("000000000007");
        assertThat(CheckpointLayout.FRAGMENTS.key("sink-events_bronze-0.json"))
                .contains("sink-events_bronze-0");
        assertThat(new SkippedCommit("events_5min", 7, 9).key())
                .isEqualTo("events_5min-0000000000000000007");
        assertThat(CheckpointLayout.SKIPPED_COMMITS.name("events_5min-0000000000000000007"))
                .isEqualTo("events_5min-0000000000000000007.json");
        assertThat(CheckpointLayout.BATCH_PLANS.key(".0000000000000000007.tmp")).isEmpty();
    }

    /** Plain text entries. */
    private static final class Text implements LogCodec<String> {
        @Override
        public byte[] encode(String record) {
            return record.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }
}
