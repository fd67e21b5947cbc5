package org.flinkss.runtime.table.delta;

import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;
import static org.flinkss.runtime.table.delta.TestRows.values;

class LegacyTablesTest {

    @TempDir Path dir;

    /** A table as the earlier FileSink left it: committed part files, a hidden in-progress one. */
    private Path legacyAppendTable(String name, List<RowData> rows) throws Exception {
        Path folder = dir.resolve(name);
        LegacyFolder.declare(folder, EVENTS, "bronze", "append");
        LegacyFolder.part(folder, "part-0-0.parquet", EVENTS, rows.subList(0, rows.size() / 2));
        LegacyFolder.part(
                folder, "part-0-1.parquet", EVENTS, rows.subList(rows.size() / 2, rows.size()));
        LegacyFolder.part(folder, ".part-0-2.parquet.inprogress.123", EVENTS, events(999, 1));
        return folder;
    }

    @Test
    void anUnconvertedTableIsRefusedWithAMessageThatSaysHowToConvertIt() throws Exception {
        Path folder = legacyAppendTable("events_bronze", events(0, 10));
        DeltaTable table = DeltaTable.forPath(folder.toString());

        assertThat(table.isLegacy()).isTrue();
        assertThat(LegacyTables.isLegacy(folder.toFile())).isTrue();
        assertThatThrownBy(table::snapshot)
                .hasMessageContaining("earlier version of flinkss")
                .hasMessageContaining("table convert events_bronze")
                .hasMessageContaining(folder.toString());
        assertThatThrownBy(() -> table.create(EVENTS, Map.of()))
                .hasMessageContaining("table convert");
    }

    @Test
    void convertingAnAppendTableCommitsItsPartFilesAsVersionZeroWithoutRewritingThem()
            throws Exception {
        List<RowData> rows = events(0, 40);
        Path folder = legacyAppendTable("events_bronze", rows);
        long bytesBefore = Files.size(folder.resolve("part-0-0.parquet"));

        DeltaTable table =
                LegacyTables.convert(
                        folder.toFile(), DeltaStorage.flink(), Map.of("flinkss.x", "y"));

        assertThat(table.isLegacy()).isFalse();
        assertThat(table.version()).isZero();
        assertThat(table.rowType()).isEqualTo(EVENTS);
        assertThat(table.properties())
                .containsEntry(LegacyTables.WRITER, "bronze")
                .containsEntry(LegacyTables.MODE, "append")
                .containsEntry("flinkss.x", "y");
        assertThat(LegacyTables.isLegacy(folder.toFile())).isFalse();
        assertThat(table.snapshot().files())
                .extracting(DataFile::name)
                .containsExactlyInAnyOrder("part-0-0.parquet", "part-0-1.parquet");
        assertThat(Files.size(folder.resolve("part-0-0.parquet"))).isEqualTo(bytesBefore);
        assertThat(values(table.snapshot().rows(), EVENTS)).isEqualTo(values(rows, EVENTS));
        assertThat(TestRows.readWithKernel(table.path())).isEqualTo(values(rows, EVENTS));
        // The converted table takes batches as any other; converting again changes nothing.
        table.append(
                "bronze-id",
                0,
                List.of(
                        DataFiles.write(
                                new org.apache.flink.core.fs.Path(table.path()),
                                EVENTS,
                                events(40, 2))));
        assertThat(
                        LegacyTables.convert(folder.toFile(), DeltaStorage.flink(), Map.of())
                                .snapshot()
                                .count())
                .isEqualTo(42);
    }

    @Test
    void convertingACompleteTableKeepsOnlyItsCurrentResult() throws Exception {
        Path folder = dir.resolve("totals");
        LegacyFolder.declare(folder, EVENTS, "win5", "complete");
        LegacyFolder.part(folder, "part-complete-0-a.parquet", EVENTS, events(0, 5));
        LegacyFolder.part(folder, "part-complete-1-b.parquet", EVENTS, events(100, 3));
        Files.writeString(folder.resolve(LegacyTables.CURRENT), "part-complete-1-b.parquet");

        DeltaTable table = LegacyTables.convert(folder.toFile(), DeltaStorage.flink(), Map.of());

        assertThat(table.properties()).containsEntry(LegacyTables.MODE, "complete");
        assertThat(values(table.snapshot().rows(), EVENTS))
                .isEqualTo(values(events(100, 3), EVENTS));
        List<List<Object>> kernel = new ArrayList<>(TestRows.readWithKernel(table.path()));
        assertThat(kernel).hasSize(3);
    }
}
