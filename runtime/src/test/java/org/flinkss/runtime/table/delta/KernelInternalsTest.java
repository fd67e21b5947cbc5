package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.CheckpointAlreadyExistsException;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.exceptions.InvalidTableException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;

/**
 * {@link KernelInternals} pinned to Delta Kernel 4.0.0: each method run against a real table, and
 * each error Kernel reports for a short log listing provoked for real. A test failing after a
 * Kernel upgrade names what Kernel changed.
 */
class KernelInternalsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir java.nio.file.Path dir;

    private final Engine engine = DeltaStorage.flink().engine();

    @Test
    void dataFilesWithStatisticsReadEachFilesMinimumMaximumAndNullCountsFromTheLog()
            throws Exception {
        DeltaTable table = newTable(Map.of());
        table.append("q", 0, List.of(write(table, 7)));

        List<DataFile> files =
                KernelInternals.dataFilesWithStatistics(latest(table), engine, new HashMap<>());

        assertThat(files).hasSize(1);
        assertThat(files.get(0).numRecords()).isEqualTo(7);
        assertThat(files.get(0).minValues()).containsEntry("event_id", 0L);
        assertThat(files.get(0).maxValues()).containsEntry("event_id", 6L);
        assertThat(files.get(0).nullCounts()).containsKey("event_id");
        assertThat(
                        KernelInternals.dataFiles(latest(table), engine, new HashMap<>())
                                .get(0)
                                .minValues())
                .isEmpty();
    }

    @Test
    void withOperationPutsTheOperationAndMetricsIntoTheCommitInfoAndLeavesOtherActions()
            throws Exception {
        DeltaTable table = newTable(Map.of());
        Transaction txn =
                Table.forPath(engine, table.path())
                        .createTransactionBuilder(engine, "test", Operation.WRITE)
                        .build(engine);
        OperationInfo info =
                new OperationInfo("MERGE", Map.of("predicate", "[]"), Map.of("numSourceRows", "3"));
        long version =
                txn.commit(new OperationEngine(engine, info), CloseableIterable.emptyIterable())
                        .getVersion();

        JsonNode commitInfo = action(version, "commitInfo");
        assertThat(commitInfo.path("operation").asText()).isEqualTo("MERGE");
        assertThat(commitInfo.path("operationMetrics").path("numSourceRows").asText())
                .isEqualTo("3");
        assertThat(commitInfo.path("operationParameters").path("predicate").asText())
                .isEqualTo("[]");
        assertThat(commitInfo.path("isBlindAppend").asBoolean()).isFalse();
        assertThat(commitInfo.path("engineInfo").asText()).contains("test");
    }

    private DeltaTable newTable(Map<String, String> properties) {
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
        table.create(EVENTS, properties);
        return table;
    }

    private DataFile write(DeltaTable table, int rows) throws Exception {
        return DataFiles.write(new Path(table.path()), EVENTS, events(0, rows));
    }

    private Snapshot latest(DeltaTable table) {
        return Table.forPath(engine, table.path()).getLatestSnapshot(engine);
    }

    private java.nio.file.Path log(String file) {
        return dir.resolve("t/_delta_log/" + file);
    }

    private static String entry(long version) {
        return String.format("%020d.json", version);
    }

    private JsonNode action(long version, String kind) throws Exception {
        for (String line : Files.readAllLines(log(entry(version)))) {
            JsonNode action = JSON.readTree(line);
            if (action.has(kind)) {
                return action.get(kind);
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- reading snapshots

    @Test
    void propertiesAreTheTablesConfigurationAsCommitted() {
        DeltaTable table = newTable(Map.of("flinkss.writer", "bronze", "flinkss.mode", "append"));

        assertThat(KernelInternals.properties(latest(table)))
                .isEqualTo(Map.of("flinkss.writer", "bronze", "flinkss.mode", "append"));

        table.setProperties(Map.of("flinkss.writer", "win5"));
        assertThat(KernelInternals.properties(latest(table)))
                .isEqualTo(Map.of("flinkss.writer", "win5", "flinkss.mode", "append"));
    }

    @Test
    void theLatestTransactionVersionIsTheNewestBatchOfThatQueryOnly() throws Exception {
        DeltaTable table = newTable(Map.of());
        assertThat(KernelInternals.latestTransactionVersion(latest(table), engine, "q")).isEmpty();

        table.append("q", 0, List.of(write(table, 1)));
        table.append("q", 3, List.of(write(table, 1)));
        table.append("other", 7, List.of(write(table, 1)));

        assertThat(KernelInternals.latestTransactionVersion(latest(table), engine, "q"))
                .hasValue(3);
        assertThat(KernelInternals.latestTransactionVersion(latest(table), engine, "other"))
                .hasValue(7);
        assertThat(KernelInternals.latestTransactionVersion(latest(table), engine, "none"))
                .isEmpty();
    }

    @Test
    void dataFilesAreTheSnapshotsFilesWithTheirRowCounts() throws Exception {
        DeltaTable table = newTable(Map.of());
        DataFile ten = write(table, 10);
        DataFile five = write(table, 5);
        table.append("q", 0, List.of(ten, five));

        List<DataFile> files = KernelInternals.dataFiles(latest(table), engine, new HashMap<>());

        assertThat(files)
                .extracting(DataFile::name, DataFile::size, DataFile::numRecords)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(ten.name(), ten.size(), 10L),
                        org.assertj.core.groups.Tuple.tuple(five.name(), five.size(), 5L));
        assertThat(files).allSatisfy(f -> assertThat(f.path()).startsWith("file:/"));
    }

    @Test
    void fileStatusIsTheFileAPublicScanRowNames() throws Exception {
        DeltaTable table = newTable(Map.of());
        DataFile file = write(table, 3);
        table.append("q", 0, List.of(file));

        Scan scan = latest(table).getScanBuilder().build();
        List<FileStatus> statuses = new ArrayList<>();
        try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    rows.forEachRemaining(r -> statuses.add(KernelInternals.fileStatus(r)));
                }
            }
        }

        assertThat(statuses)
                .singleElement()
                .satisfies(
                        s -> {
                            assertThat(s.getPath())
                                    .endsWith("/" + file.name())
                                    .startsWith("file:/");
                            assertThat(s.getSize()).isEqualTo(file.size());
                        });
    }

    // ---------------------------------------------------------------- writing

    @Test
    void removeActionsRemoveTheFilesTheirNamesSelectAtTheGivenTime() throws Exception {
        DeltaTable table = newTable(Map.of());
        DataFile gone = write(table, 4);
        DataFile kept = write(table, 6);
        table.append("q", 0, List.of(gone, kept));

        List<Row> removes =
                KernelInternals.removeActions(
                        latest(table), engine, name -> name.equals(gone.name()), 1234L);
        Transaction txn =
                Table.forPath(engine, table.path())
                        .createTransactionBuilder(engine, "test", Operation.WRITE)
                        .build(engine);
        txn.commit(
                engine,
                CloseableIterable.inMemoryIterable(FlinkFileIO.iterator(removes.iterator())));

        assertThat(removes).hasSize(1);
        assertThat(table.snapshot().files())
                .extracting(DataFile::name)
                .containsExactly(kept.name());
        JsonNode remove = action(2, "remove");
        assertThat(remove.get("path").asText()).endsWith(gone.name());
        assertThat(remove.get("deletionTimestamp").asLong()).isEqualTo(1234L);
        assertThat(remove.get("dataChange").asBoolean()).isTrue();
    }

    @Test
    void aReplaceTableTransactionEmptiesTheTableAndTakesTheNewColumns() throws Exception {
        DeltaTable table = newTable(Map.of("flinkss.writer", "bronze"));
        table.append("q", 0, List.of(write(table, 5)));
        RowType other = RowType.of(new BigIntType());

        Transaction txn =
                KernelInternals.replaceTableTransaction(
                                Table.forPath(engine, table.path()), engine, "test")
                        .withSchema(engine, DeltaSchema.toDelta(other))
                        .withTableProperties(engine, Map.of("flinkss.writer", "reset"))
                        .build(engine);
        txn.commit(engine, CloseableIterable.emptyIterable());

        assertThat(table.version()).isEqualTo(2);
        assertThat(table.rowType()).isEqualTo(other);
        assertThat(table.snapshot().files()).isEmpty();
        assertThat(table.properties()).containsEntry("flinkss.writer", "reset");
        assertThat(action(2, "commitInfo").get("operation").asText()).isEqualTo("REPLACE TABLE");
        assertThat(table.snapshotAt(1).count()).isEqualTo(5); // the old version stays readable
    }

    @Test
    void writeCheckpointWritesTheCheckpointAndLastCheckpointOnce() throws Exception {
        DeltaTable table = newTable(Map.of());
        table.append("q", 0, List.of(write(table, 2)));
        table.append("q", 1, List.of(write(table, 2)));

        Table kernelTable = Table.forPath(engine, table.path());
        KernelInternals.writeCheckpoint(engine, kernelTable, kernelTable.getLatestSnapshot(engine));

        assertThat(log("00000000000000000002.checkpoint.parquet")).exists();
        assertThat(JSON.readTree(log("_last_checkpoint").toFile()).get("version").asLong())
                .isEqualTo(2);
        assertThatThrownBy(
                        () ->
                                KernelInternals.writeCheckpoint(
                                        engine, kernelTable, kernelTable.getLatestSnapshot(engine)))
                .isInstanceOf(CheckpointAlreadyExistsException.class);
    }

    // ---------------------------------------------------------------- short listings

    /** A table at version 5 with a checkpoint at 3 ({@code delta.checkpointInterval} 3). */
    private DeltaTable tableWithCheckpointAt3() throws Exception {
        DeltaTable table = newTable(Map.of("delta.checkpointInterval", "3"));
        for (int b = 0; b < 5; b++) {
            table.append("q", b, List.of(write(table, 1)));
        }
        assertThat(log("00000000000000000003.checkpoint.parquet")).exists();
        return table;
    }

    /**
     * {@code e} is Kernel's error of this type and text, and the adapter takes it for a short
     * listing.
     */
    private static void assertShortListing(RuntimeException e, Class<?> type, String text) {
        assertThat(e).isExactlyInstanceOf(type).hasMessageContaining(text);
        assertThat(KernelInternals.isShortListing(e)).as(e.toString()).isTrue();
    }

    private RuntimeException latestFails(DeltaTable table) {
        return catchThrowableOfType(
                RuntimeException.class,
                () -> Table.forPath(engine, table.path()).getLatestSnapshot(engine));
    }

    @Test
    void aLogWithAGapIsAShortListingByKernelsExceptionType() throws Exception {
        DeltaTable table = newTable(Map.of());
        for (int b = 0; b < 3; b++) {
            table.append("q", b, List.of(write(table, 1)));
        }
        Files.delete(log(entry(2)));

        RuntimeException e = latestFails(table);

        assertShortListing(e, InvalidTableException.class, "versions are not contiguous");
    }

    @Test
    void aMissingCheckpointIsAShortListingByKernelsExceptionType() throws Exception {
        DeltaTable table = tableWithCheckpointAt3();
        Files.delete(log("00000000000000000003.checkpoint.parquet"));

        RuntimeException e = latestFails(table);

        assertShortListing(e, InvalidTableException.class, "Missing checkpoint at version 3");
    }

    @Test
    void aMissingEntryAfterTheCheckpointIsAShortListingByKernelsExceptionType() throws Exception {
        DeltaTable table = tableWithCheckpointAt3();
        Files.delete(log(entry(4)));

        RuntimeException e = latestFails(table);

        assertShortListing(e, InvalidTableException.class, "Missing delta file version 4");
    }

    /**
     * A transaction read at version 0 on an engine whose listings of the log can be cut; another
     * writer then commits versions 1 to {@code others}. Its commit loses the race for version 1 and
     * lists the winners.
     */
    private RuntimeException commitAfterOthers(int others, List<Set<Long>> hiddenByListing)
            throws Exception {
        DeltaTable table = newTable(Map.of());
        ShortListingFileIO io = new ShortListingFileIO();
        Engine shortEngine = io.engine();
        Transaction txn =
                Table.forPath(shortEngine, table.path())
                        .createTransactionBuilder(shortEngine, "test", Operation.WRITE)
                        .build(shortEngine);
        for (int b = 0; b < others; b++) {
            table.append("other", b, List.of(write(table, 1)));
        }
        io.hide(hiddenByListing);
        return catchThrowableOfType(
                RuntimeException.class,
                () -> txn.commit(shortEngine, CloseableIterable.emptyIterable()));
    }

    @Test
    void noWinnersInAConflictsListingIsAShortListingByItsText() throws Exception {
        RuntimeException e = commitAfterOthers(1, List.of(Set.of(1L)));

        assertShortListing(e, IllegalStateException.class, "No winning commits found");
    }

    @Test
    void aGapAmongTheWinnersIsAShortListingByItsText() throws Exception {
        RuntimeException e = commitAfterOthers(3, List.of(Set.of(2L)));

        assertShortListing(e, IllegalStateException.class, "Gaps in Delta log commit files");
    }

    @Test
    void fewerWinnersOnTheSecondTryIsAShortListingByItsText() throws Exception {
        // First listing: winners 1 and 2, so the retry goes for 3, which exists too; the second
        // listing shows winner 1 only, a version below the one just tried.
        RuntimeException e = commitAfterOthers(3, List.of(Set.of(3L), Set.of(2L, 3L)));

        assertShortListing(
                e,
                IllegalArgumentException.class,
                "should be greater than the previous commit attempt version");
    }

    @Test
    void aMissingTableOrAnotherWritersSameBatchIsNoShortListing() throws Exception {
        RuntimeException missing =
                catchThrowableOfType(
                        RuntimeException.class,
                        () ->
                                Table.forPath(engine, dir.resolve("none").toString())
                                        .getLatestSnapshot(engine));
        assertThat(missing).isInstanceOf(TableNotFoundException.class);
        assertThat(KernelInternals.isShortListing(missing)).isFalse();

        DeltaTable table = newTable(Map.of());
        Transaction stale =
                Table.forPath(engine, table.path())
                        .createTransactionBuilder(engine, "test", Operation.STREAMING_UPDATE)
                        .withTransactionId(engine, "q", 0)
                        .build(engine);
        table.append("q", 0, List.of(write(table, 1)));
        RuntimeException sameBatch =
                catchThrowableOfType(
                        RuntimeException.class,
                        () -> stale.commit(engine, CloseableIterable.emptyIterable()));
        assertThat(sameBatch).isInstanceOf(ConcurrentTransactionException.class);
        assertThat(KernelInternals.isShortListing(sameBatch)).isFalse();
        assertThat(KernelInternals.isShortListing(new IllegalStateException("other"))).isFalse();
    }
}
