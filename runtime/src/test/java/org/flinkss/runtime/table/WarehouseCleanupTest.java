package org.flinkss.runtime.table;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Warehouse#deleteUncommitted(String, String, Path)}: the clean-up after a run deletes the
 * query's data files that no version committed, and with its record of where the last clean-up
 * ended it replays the table's snapshot only when a file is not accounted for by the record and the
 * log entries since; a committed file, or another query's, is never deleted.
 */
class WarehouseCleanupTest {

    private static final RowType ROWS =
            RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"id"});
    private static final String T = "events";
    private static final String Q = "q1";

    @TempDir java.nio.file.Path dir;

    private Warehouse warehouse;
    private DeltaTable table;
    private Path record;
    private long batch;

    @BeforeEach
    void createTable() {
        warehouse = new Warehouse(Storage.location(dir.resolve("warehouse").toFile()));
        table = warehouse.delta(T);
        table.create(ROWS, Map.of());
        record = Storage.location(dir.resolve("_cp/q/cleanup/" + T + ".json").toFile());
    }

    private DataFile write(String name, int rows) throws Exception {
        List<RowData> data = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            data.add(GenericRowData.of((long) i));
        }
        return DataFiles.writeFile(new Path(warehouse.folder(T), name), ROWS, data);
    }

    private void commit(String... names) throws Exception {
        List<DataFile> files = new ArrayList<>();
        for (String n : names) {
            files.add(write(n, 3));
        }
        assertThat(table.append(Q, batch++, files).committed()).isTrue();
    }

    private Warehouse.Cleanup clean() {
        return warehouse.deleteUncommitted(T, Q, record);
    }

    private List<String> filesInFolder() throws Exception {
        try (Stream<java.nio.file.Path> files =
                Files.list(Storage.localFile(warehouse.tableLocation(T), "a test file").toPath())) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".parquet"))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void runsThatLeaveNoStagedFileAreCheckedFromTheLogEntriesSinceTheLastCleanup()
            throws Exception {
        commit("q1-00000-a.parquet");
        // No record yet: the snapshot is replayed once, nothing is deleted, the record is made.
        assertThat(clean()).isEqualTo(new Warehouse.Cleanup(0, true));
        assertThat(Storage.exists(record)).isTrue();

        // Two runs that each committed what they wrote: no replay.
        commit("q1-00000-b.parquet", "q1-00001-b.parquet");
        assertThat(clean()).isEqualTo(new Warehouse.Cleanup(0, false));
        commit("q1-00000-c.parquet");
        assertThat(clean()).isEqualTo(new Warehouse.Cleanup(0, false));
        // A run that committed nothing: no replay either.
        assertThat(clean()).isEqualTo(new Warehouse.Cleanup(0, false));
        assertThat(filesInFolder())
                .containsExactly(
                        "q1-00000-a.parquet",
                        "q1-00000-b.parquet",
                        "q1-00000-c.parquet",
                        "q1-00001-b.parquet");
        assertThat(warehouse.count(T)).isEqualTo(12);
    }

    @Test
    void aFileThatNoVersionCommittedIsFoundAndDeletedOnlyThatOne() throws Exception {
        commit("q1-00000-a.parquet");
        clean();

        // A killed run's staged file, a committed batch after it, another query's file, and a
        // file of this query's that a later version removed (superseded): only the staged one
        // goes.
        write("q1-00001-killed.parquet", 5);
        commit("q1-00000-b.parquet");
        write("q2-00000-other.parquet", 5);
        assertThat(clean()).isEqualTo(new Warehouse.Cleanup(1, true));
        assertThat(filesInFolder())
                .containsExactly(
                        "q1-00000-a.parquet", "q1-00000-b.parquet", "q2-00000-other.parquet");
        assertThat(warehouse.count(T)).isEqualTo(6);

        // The replay recorded where it ended: the next clean run does not replay.
        commit("q1-00000-c.parquet");
        assertThat(clean()).isEqualTo(new Warehouse.Cleanup(0, false));
    }

    @Test
    void aStagedFileInPlaceOfAVacuumedOneIsNotTakenForIt() throws Exception {
        commit("q1-00000-a.parquet", "q1-00000-b.parquet");
        clean();

        // As many files as recorded, but one is another: the digest, not the count, decides.
        Files.delete(
                Storage.localFile(warehouse.tableLocation(T), "a test file")
                        .toPath()
                        .resolve("q1-00000-b.parquet"));
        write("q1-00001-staged.parquet", 5);
        assertThat(clean()).isEqualTo(new Warehouse.Cleanup(1, true));
        assertThat(filesInFolder()).containsExactly("q1-00000-a.parquet");
    }

    @Test
    void filesThatALaterVersionRemovedStayAndNeedNoReplay() throws Exception {
        commit("q1-00000-a.parquet");
        clean();
        DataFile replacement = write("q1-00000-r.parquet", 2);
        assertThat(table.overwrite(Q, batch++, List.of(replacement)).committed()).isTrue();

        assertThat(clean()).isEqualTo(new Warehouse.Cleanup(0, false));
        assertThat(filesInFolder()).containsExactly("q1-00000-a.parquet", "q1-00000-r.parquet");
        assertThat(warehouse.count(T)).isEqualTo(2);
        assertThat(warehouse.snapshot(T, 1L, null).count()).isEqualTo(3);
    }

    @Test
    void aRecordOfAnotherQueryIdOrTableOrUnreadableIsNotTrusted() throws Exception {
        commit("q1-00000-a.parquet");
        clean();
        String written = Storage.readText(record);

        // Another query id (a reset's) or another table folder (a moved base): replayed.
        Storage.replaceText(record, written.replace("\"q1\"", "\"q0\""));
        assertThat(clean().replayed()).isTrue();
        Storage.replaceText(record, written.replace("/warehouse/", "/elsewhere/"));
        assertThat(clean().replayed()).isTrue();
        Storage.replaceText(record, "{not json");
        assertThat(clean().replayed()).isTrue();
        // Each replay wrote it again.
        assertThat(Storage.readText(record)).isEqualTo(written);
        assertThat(clean().replayed()).isFalse();
        assertThat(filesInFolder()).containsExactly("q1-00000-a.parquet");
    }

    @Test
    void withoutARecordEveryCleanupReplays() throws Exception {
        commit("q1-00000-a.parquet");
        write("q1-00001-staged.parquet", 5);
        assertThat(warehouse.deleteUncommitted(T, Q)).isEqualTo(1);
        assertThat(warehouse.deleteUncommitted(T, Q, null))
                .isEqualTo(new Warehouse.Cleanup(0, true));
        assertThat(filesInFolder()).containsExactly("q1-00000-a.parquet");
    }
}
