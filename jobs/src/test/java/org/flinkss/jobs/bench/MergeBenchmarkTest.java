package org.flinkss.jobs.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.HistoryEntry;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code scripts/bench-merge}'s measurements on a small table: the table is loaded in one commit of
 * a few files, then each shape MERGEs its batches and reports the files it rewrote.
 */
class MergeBenchmarkTest {

    @TempDir Path dir;

    @Test
    void eachShapeRewritesTheFilesThatHoldItsKeysAndNoOthers() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        MergeBenchmark.run(
                new String[] {
                    "--dir", dir.toString(),
                    "--rows", "3000",
                    "--rows-per-file", "1000",
                    "--batch-rows", "50",
                    "--batches", "2"
                },
                new PrintStream(bytes, true, StandardCharsets.UTF_8));

        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(5);
        // New ids: no file rewritten, one new file of the batch's rows.
        assertThat(lines.get(2)).startsWith("| 3,000 | 3 | insert, 50 rows | 0 | 50 | ");
        // Ids of the newest file: that file alone, all its rows written again.
        assertThat(lines.get(3)).startsWith("| 3,000 | 3 | update-recent, 50 rows | 1 | 1,000 | ");
        // Ids over the whole table: every file of the load rewritten.
        assertThat(lines.get(4)).startsWith("| 3,000 | 3 | update-spread, 50 rows | 3 | ");

        DeltaTable table = DeltaTable.forPath(dir.resolve("events_latest_3000").toUri().toString());
        List<HistoryEntry> history = table.history(100);
        assertThat(history).filteredOn(e -> e.operation().equals("MERGE")).hasSize(6);
        assertThat(
                        table.snapshotWithStatistics().files().stream()
                                .mapToLong(f -> f.numRecords())
                                .sum())
                .as("the load's rows and the inserted ones")
                .isEqualTo(3000 + 2 * 50);
    }

    @Test
    void aTableFolderThatExistsIsRefusedAndLeftAlone() throws Exception {
        dir.resolve("events_latest_10").toFile().mkdirs();
        assertThatThrownBy(
                        () ->
                                MergeBenchmark.run(
                                        new String[] {"--dir", dir.toString(), "--rows", "10"},
                                        new PrintStream(new ByteArrayOutputStream())))
                .hasMessageContaining("events_latest_10 exists");
    }
}
