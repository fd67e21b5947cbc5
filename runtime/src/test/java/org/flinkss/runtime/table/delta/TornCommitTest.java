package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;

/**
 * A newest commit that a crash left torn (zero bytes, or cut in its last line) is absent: the table
 * ends at the version before, and the batch's next commit takes that version again, so that version
 * numbers stay contiguous and a reader of the table reads the batch once (issue 38, point 4).
 */
class TornCommitTest {

    private static final String QUERY = "6f1c0a4e-query-bronze";

    @TempDir java.nio.file.Path dir;

    private java.nio.file.Path commit(long version) {
        return dir.resolve("t/_delta_log/" + String.format("%020d.json", version));
    }

    private java.nio.file.Path checksum(long version) {
        return dir.resolve("t/_delta_log/" + String.format("%020d.crc", version));
    }

    /** Version 0 creates, 1 holds batch 0 (10 rows), 2 holds batch 1 (20 rows). */
    private DataFile twoBatches() throws Exception {
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
        table.create(EVENTS, Map.of());
        Path folder = new Path(table.path());
        table.append(QUERY, 0, List.of(DataFiles.write(folder, EVENTS, events(0, 10))));
        DataFile second = DataFiles.write(folder, EVENTS, events(10, 20));
        assertThat(table.append(QUERY, 1, List.of(second)).version()).isEqualTo(2);
        return second;
    }

    private void assertTornCommitIsAbsentThenRewritten(DataFile second, boolean hadChecksum)
            throws Exception {
        DeltaTable reopened = DeltaTable.forPath(dir.resolve("t").toString());
        assertThat(reopened.version()).isEqualTo(1);
        assertThat(reopened.committedBatch(QUERY)).hasValue(0);
        assertThat(reopened.snapshot().files()).hasSize(1);

        CommitResult again = reopened.append(QUERY, 1, List.of(second));

        assertThat(again.committed()).isTrue();
        assertThat(again.version()).isEqualTo(2);
        DeltaTable after = DeltaTable.forPath(dir.resolve("t").toString());
        assertThat(after.version()).isEqualTo(2);
        assertThat(after.committedBatch(QUERY)).hasValue(1);
        assertThat(after.snapshot().files()).hasSize(2);
        assertThat(after.filesAdded(1, 2)).hasSize(2);
        assertThat(TornCommits.tornBecause(new Path(commit(2).toUri()), Files.size(commit(2))))
                .isNull();
        try (Stream<java.nio.file.Path> log = Files.list(dir.resolve("t/_delta_log"))) {
            assertThat(log.map(p -> p.getFileName().toString()))
                    .anyMatch(n -> n.startsWith(".00000000000000000002.json.torn-"));
        }
        // The torn version's checksum went aside with it: the new commit's is its own.
        try (Stream<java.nio.file.Path> log = Files.list(dir.resolve("t/_delta_log"))) {
            assertThat(log.map(p -> p.getFileName().toString()))
                    .filteredOn(n -> n.startsWith(".00000000000000000002.crc.torn-"))
                    .hasSize(hadChecksum ? 1 : 0);
        }
    }

    @Test
    void aZeroLengthNewestCommitIsAbsentAndItsBatchIsCommittedAgainAsThatVersion()
            throws Exception {
        DataFile second = twoBatches();
        boolean hadChecksum = Files.exists(checksum(2));
        Files.write(commit(2), new byte[0]);

        assertTornCommitIsAbsentThenRewritten(second, hadChecksum);
    }

    @Test
    void aHalfWrittenNewestCommitIsAbsentAndItsBatchIsCommittedAgainAsThatVersion()
            throws Exception {
        DataFile second = twoBatches();
        boolean hadChecksum = Files.exists(checksum(2));
        try (RandomAccessFile f = new RandomAccessFile(commit(2).toFile(), "rw")) {
            f.setLength(f.length() - 30); // cut in its last line
        }

        assertTornCommitIsAbsentThenRewritten(second, hadChecksum);
    }

    @Test
    void aWholeCommitIsNotTorn() throws Exception {
        twoBatches();

        assertThat(TornCommits.tornBecause(new Path(commit(2).toUri()), Files.size(commit(2))))
                .isNull();
        assertThat(DeltaTable.forPath(dir.resolve("t").toString()).version()).isEqualTo(2);
    }

    @Test
    void aCommitIsTornWhenEmptyCutOrEndingInALineThatIsNoJsonObject() throws Exception {
        assertThat(torn("")).isEqualTo("0 bytes");
        assertThat(torn("{\"add\":{}}\n{\"add\":{\"pa")).contains("no newline");
        assertThat(torn("{\"add\":{}}\n{\"add\":{\"pa\n")).contains("not JSON");
        assertThat(torn("{\"add\":{}}\n42\n")).contains("not a JSON object");
        assertThat(torn("{\"commitInfo\":{}}\n{\"add\":{}}\n")).isNull();
    }

    private String torn(String content) throws Exception {
        java.nio.file.Path file = dir.resolve("00000000000000000007.json");
        Files.write(file, content.getBytes(StandardCharsets.UTF_8));
        return TornCommits.tornBecause(new Path(file.toUri()), Files.size(file));
    }
}
