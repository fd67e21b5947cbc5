package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.flinkss.runtime.table.delta.TestRows.EVENTS;
import static org.flinkss.runtime.table.delta.TestRows.events;
import static org.flinkss.runtime.table.delta.TestRows.values;

class DeltaTableTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String QUERY = "6f1c0a4e-query-bronze";

    @TempDir java.nio.file.Path dir;

    private DeltaTable newTable() {
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
        table.create(EVENTS, Map.of());
        return table;
    }

    private DataFile write(DeltaTable table, List<RowData> rows) throws Exception {
        return DataFiles.write(new Path(table.path()), EVENTS, rows);
    }

    private List<JsonNode> logEntry(long version) throws Exception {
        return logEntry(dir.resolve("t"), version);
    }

    /** The actions of the table's log entry {@code version}, one JSON object a line. */
    static List<JsonNode> logEntry(java.nio.file.Path table, long version) throws Exception {
        List<JsonNode> actions = new ArrayList<>();
        for (String line :
                Files.readAllLines(
                        table.resolve("_delta_log/" + String.format("%020d.json", version)))) {
            actions.add(JSON.readTree(line));
        }
        return actions;
    }

    /** The first action of {@code kind} ({@code add}, {@code protocol}...) in a log entry. */
    static JsonNode action(List<JsonNode> actions, String kind) {
        return actions.stream()
                .filter(a -> a.has(kind))
                .findFirst()
                .map(a -> a.get(kind))
                .orElse(null);
    }

    @Test
    void aTableCreatedFromARowTypeReadsBackTheSameRowType() {
        DeltaTable table = newTable();

        assertThat(table.exists()).isTrue();
        assertThat(table.version()).isZero();
        assertThat(table.rowType()).isEqualTo(EVENTS);
        assertThat(table.snapshot().files()).isEmpty();
        // Creating it again with the same columns changes nothing; other columns are refused.
        assertThat(table.create(EVENTS, Map.of())).isZero();
        RowType other = RowType.of(new TimestampType(6));
        assertThatThrownBy(() -> table.create(other, Map.of())).hasMessageContaining("has columns");
    }

    @Test
    void theLogIsDeltaJsonThatOtherEnginesRead() throws Exception {
        DeltaTable table = newTable();
        DataFile file = write(table, events(0, 10));
        table.append(QUERY, 0, List.of(file));

        List<JsonNode> create = logEntry(0);
        JsonNode protocol = action(create, "protocol");
        assertThat(protocol.get("minReaderVersion").asInt()).isEqualTo(1);
        assertThat(protocol.get("minWriterVersion").asInt()).isEqualTo(2);
        JsonNode schema = JSON.readTree(action(create, "metaData").get("schemaString").asText());
        assertThat(schema.get("fields").findValuesAsText("type"))
                .containsExactly(
                        "long", "integer", "string", "timestamp", "double", "boolean", "date");
        assertThat(action(create, "commitInfo").get("operation").asText())
                .isEqualTo("CREATE TABLE");

        List<JsonNode> append = logEntry(1);
        JsonNode txn = action(append, "txn");
        assertThat(txn.get("appId").asText()).isEqualTo(QUERY);
        assertThat(txn.get("version").asLong()).isZero();
        JsonNode add = action(append, "add");
        // Relative to the table, as Spark writes it, so the folder can be moved or copied.
        assertThat(add.get("path").asText())
                .isEqualTo(file.name())
                .startsWith("part-")
                .endsWith(".parquet");
        assertThat(add.get("size").asLong())
                .isEqualTo(Files.size(dir.resolve("t").resolve(file.name())));
        assertThat(add.get("dataChange").asBoolean()).isTrue();
        JsonNode stats = JSON.readTree(add.get("stats").asText());
        assertThat(stats.get("numRecords").asLong()).isEqualTo(10);
        assertThat(stats.get("minValues").get("event_id").asLong()).isZero();
        assertThat(stats.get("maxValues").get("event_id").asLong()).isEqualTo(9);
        assertThat(stats.get("minValues").get("event_type").asText()).isEqualTo("click");
        assertThat(stats.get("maxValues").get("day").asText()).isEqualTo("2025-03-05");
        assertThat(stats.get("nullCount").get("event_type").asLong()).isEqualTo(1);
        assertThat(action(append, "commitInfo").get("operation").asText())
                .isEqualTo("STREAMING UPDATE");
    }

    @Test
    void appendedRowsReadBackTheSameWithTheProjectsReaderAndWithKernelsOwn() throws Exception {
        DeltaTable table = newTable();
        List<RowData> rows = new ArrayList<>(events(0, 100));
        table.append(
                QUERY,
                0,
                List.of(write(table, rows.subList(0, 60)), write(table, rows.subList(60, 100))));

        List<List<Object>> expected = values(rows, EVENTS);
        assertThat(values(table.snapshot().rows(), EVENTS)).isEqualTo(expected);
        assertThat(TestRows.readWithKernel(table.path())).isEqualTo(expected);
        assertThat(table.snapshot().count()).isEqualTo(100);
    }

    @Test
    void aReplayedBatchIsSkippedAndWritesNoRowTwice() throws Exception {
        DeltaTable table = newTable();
        CommitResult first = table.append(QUERY, 0, List.of(write(table, events(0, 10))));
        CommitResult second = table.append(QUERY, 1, List.of(write(table, events(10, 10))));

        // The run is killed after the commit of batch 1 and restored from a checkpoint before it:
        // batches 0 and 1 are planned and written again, then batch 2 is new.
        CommitResult replay0 = table.append(QUERY, 0, List.of(write(table, events(0, 10))));
        CommitResult replay1 = table.append(QUERY, 1, List.of(write(table, events(10, 10))));
        CommitResult third = table.append(QUERY, 2, List.of(write(table, events(20, 10))));

        assertThat(first.committed()).isTrue();
        assertThat(second.version()).isEqualTo(2);
        assertThat(replay0.committed()).isFalse();
        assertThat(replay1.committed()).isFalse();
        assertThat(replay1.committedBatch()).isEqualTo(1);
        assertThat(replay1.describe()).contains("skipped").contains("up to 1");
        assertThat(third.committed()).isTrue();
        assertThat(third.version()).isEqualTo(3);
        assertThat(table.committedBatch(QUERY)).hasValue(2);
        assertThat(table.snapshot().count()).isEqualTo(30);
        assertThat(values(table.snapshot().rows(), EVENTS))
                .isEqualTo(values(events(0, 30), EVENTS));
        // Another query writing the same table keeps its own batch ids.
        assertThat(table.append("other-query", 0, List.of(write(table, events(30, 1)))).committed())
                .isTrue();
    }

    @Test
    void anOverwriteReplacesEveryFileInOneCommitAndKeepsTheOldVersionReadable() throws Exception {
        DeltaTable table = newTable();
        table.overwrite(
                QUERY, 0, List.of(write(table, events(0, 10)), write(table, events(10, 5))));
        CommitResult second = table.overwrite(QUERY, 1, List.of(write(table, events(100, 3))));

        assertThat(second.version()).isEqualTo(2);
        assertThat(values(table.snapshot().rows(), EVENTS))
                .isEqualTo(values(events(100, 3), EVENTS));
        assertThat(TestRows.readWithKernel(table.path())).isEqualTo(values(events(100, 3), EVENTS));
        List<JsonNode> entry = logEntry(2);
        assertThat(entry.stream().filter(a -> a.has("remove")).count()).isEqualTo(2);
        assertThat(entry.stream().filter(a -> a.has("add")).count()).isEqualTo(1);
        assertThat(table.snapshotAt(1).count()).isEqualTo(15);
        // A replayed complete-mode batch is skipped too.
        assertThat(table.overwrite(QUERY, 1, List.of(write(table, events(200, 1)))).committed())
                .isFalse();
    }

    @Test
    void timeTravelReadsAVersionOrTheVersionAsOfATime() throws Exception {
        DeltaTable table = newTable();
        table.append(QUERY, 0, List.of(write(table, events(0, 10))));
        Thread.sleep(20);
        Instant between = Instant.now();
        Thread.sleep(20);
        table.append(QUERY, 1, List.of(write(table, events(10, 10))));

        assertThat(table.snapshotAt(1).count()).isEqualTo(10);
        assertThat(table.snapshotAt(2).count()).isEqualTo(20);
        assertThat(table.snapshotAsOf(between).version()).isEqualTo(1);
        assertThat(values(table.snapshotAsOf(between).rows(), EVENTS))
                .isEqualTo(values(events(0, 10), EVENTS));
        assertThatThrownBy(() -> table.snapshotAt(7)).hasMessageContaining("has no version 7");
    }

    @Test
    void historyShowsEachVersionsOperationBatchIdAndRowsAdded() throws Exception {
        DeltaTable table = newTable();
        table.append(QUERY, 0, List.of(write(table, events(0, 10)), write(table, events(10, 2))));
        table.append(QUERY, 1, List.of(write(table, events(20, 5))));

        List<HistoryEntry> history = table.history(10);

        assertThat(history).extracting(HistoryEntry::version).containsExactly(2L, 1L, 0L);
        assertThat(history).extracting(HistoryEntry::batchId).containsExactly(1L, 0L, -1L);
        assertThat(history).extracting(HistoryEntry::rowsAdded).containsExactly(5L, 12L, 0L);
        assertThat(history)
                .extracting(HistoryEntry::operation)
                .containsExactly("STREAMING UPDATE", "STREAMING UPDATE", "CREATE TABLE");
        assertThat(history.get(0).appId()).isEqualTo(QUERY);
        assertThat(history.get(0).timestamp()).isAfterOrEqualTo(history.get(2).timestamp());
        assertThat(table.history(1)).hasSize(1);
    }

    @Test
    void aStreamReadsTheFilesAddedByARangeOfVersionsWithinItsLimits() throws Exception {
        DeltaTable table = newTable();
        List<DataFile> v1 =
                List.of(
                        write(table, events(0, 10)),
                        write(table, events(10, 10)),
                        write(table, events(20, 10)));
        table.append(QUERY, 0, v1);
        table.append(QUERY, 1, List.of(write(table, events(30, 10))));

        assertThat(table.filesAdded(1, 2))
                .extracting(f -> f.file().name())
                .containsExactly(
                        v1.get(0).name(),
                        v1.get(1).name(),
                        v1.get(2).name(),
                        table.filesAdded(2, 2).get(0).file().name());

        assertThat(table.latestVersionFrom(0)).isEqualTo(2);
        assertThat(table.latestVersionFrom(2)).isEqualTo(2);
        SourceBatch b1 = table.nextBatch(DeltaOffset.START, 2, Long.MAX_VALUE);
        assertThat(b1.files()).hasSize(2);
        assertThat(b1.end()).isEqualTo(new DeltaOffset(1, 2));
        SourceBatch b2 = table.nextBatch(b1.end(), Long.MAX_VALUE, 1); // bytes: one file, at least
        assertThat(b2.files()).extracting(AddedFile::version).containsExactly(1L);
        assertThat(b2.end()).isEqualTo(new DeltaOffset(2, 0));
        SourceBatch b3 = table.nextBatch(b2.end(), Long.MAX_VALUE, Long.MAX_VALUE);
        assertThat(b3.rows()).isEqualTo(10);
        assertThat(b3.end()).isEqualTo(new DeltaOffset(3, 0));
        SourceBatch none = table.nextBatch(b3.end(), Long.MAX_VALUE, Long.MAX_VALUE);
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.end()).isEqualTo(b3.end());

        // Complete-mode tables remove files: a stream refuses them, naming the version.
        table.overwrite(QUERY, 2, List.of(write(table, events(0, 1))));
        assertThatThrownBy(() -> table.nextBatch(b3.end(), Long.MAX_VALUE, Long.MAX_VALUE))
                .hasMessageContaining("version 3 removes 4 data file(s)");
    }

    @Test
    void theCurrentVersionIsFoundByEntryNamesOrPastSixtyFourVersionsByKernel() throws Exception {
        DeltaTable table = newTable();
        DataFile file = write(table, events(0, 1));
        for (int b = 0; b < 70; b++) {
            table.append(
                    QUERY,
                    b,
                    List.of(
                            b == 0
                                    ? file
                                    : DataFile.of(
                                            file.path(), file.size(), file.modificationTime(), 1)));
        }
        // Past 64 versions behind, the current version comes from Kernel (one log listing).
        assertThat(table.latestVersionFrom(1)).isEqualTo(70);
        assertThat(table.latestVersionFrom(60)).isEqualTo(70);
        assertThat(table.latestVersionFrom(70)).isEqualTo(70);
    }

    @Test
    void commitsWriteACheckpointEveryTenVersions() throws Exception {
        DeltaTable table = newTable();
        for (int b = 0; b < 11; b++) {
            table.append(QUERY, b, List.of(write(table, events(b, 1))));
        }

        assertThat(dir.resolve("t/_delta_log/00000000000000000010.checkpoint.parquet")).exists();
        assertThat(dir.resolve("t/_delta_log/_last_checkpoint")).exists();
        assertThat(table.version()).isEqualTo(11);
        assertThat(table.snapshot().count()).isEqualTo(11);
        assertThat(TestRows.readWithKernel(table.path())).hasSize(11);
    }

    @Test
    void checkpointsCanBeWrittenOffTheCommittingThread() throws Exception {
        ExecutorService background = Executors.newSingleThreadExecutor();
        try {
            DeltaTable table = newTable().withPostCommitExecutor(background);
            for (int b = 0; b < 10; b++) {
                table.append(QUERY, b, List.of(write(table, events(b, 1))));
            }
            background.shutdown();
            assertThat(background.awaitTermination(1, TimeUnit.MINUTES)).isTrue();

            assertThat(dir.resolve("t/_delta_log/00000000000000000010.checkpoint.parquet"))
                    .exists();
            assertThat(table.snapshot().count()).isEqualTo(10);
        } finally {
            background.shutdownNow();
        }
    }

    @Test
    void vacuumRefusesAShortRetentionUnlessForcedAndDeletesOnlyOldUnreferencedFiles()
            throws Exception {
        DeltaTable table = newTable();
        DataFile old = write(table, events(0, 10));
        table.overwrite(QUERY, 0, List.of(old));
        DataFile current = write(table, events(10, 10));
        table.overwrite(QUERY, 1, List.of(current));
        DataFile staged = write(table, events(20, 10)); // a writer's file, not committed yet
        java.nio.file.Path orphan =
                dir.resolve("t/part-orphan.parquet"); // left by a failed run, long ago
        Files.write(orphan, new byte[] {1});
        Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(30))));

        assertThatThrownBy(() -> table.vacuum(Duration.ofHours(1), false, false))
                .hasMessageContaining("refused")
                .hasMessageContaining("delta.deletedFileRetentionDuration");
        // Default retention: the overwritten file was removed just now, so it stays; the orphan
        // goes.
        VacuumResult byDefault = table.vacuum(DeltaTable.DEFAULT_RETENTION, false, false);
        assertThat(byDefault.deleted()).singleElement().asString().endsWith("part-orphan.parquet");
        // Forced to zero: every file the current version does not reference goes, the staged one
        // too.
        VacuumResult dry = table.vacuum(Duration.ZERO, true, true);
        assertThat(dry.deleted()).hasSize(2);
        assertThat(dir.resolve("t").resolve(old.name())).exists();
        VacuumResult forced = table.vacuum(Duration.ZERO, true, false);
        assertThat(forced.deleted())
                .extracting(p -> new Path(p).getName())
                .containsExactlyInAnyOrder(old.name(), staged.name());
        assertThat(dir.resolve("t").resolve(old.name())).doesNotExist();
        assertThat(dir.resolve("t").resolve(current.name())).exists();
        assertThat(table.snapshot().count()).isEqualTo(10);
        try (Stream<java.nio.file.Path> log = Files.list(dir.resolve("t/_delta_log"))) {
            assertThat(log.count()).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void aMissingTableIsNamedInTheError() {
        DeltaTable table = DeltaTable.forPath(dir.resolve("nothing").toString());
        assertThat(table.exists()).isFalse();
        assertThatThrownBy(table::snapshot)
                .hasMessageContaining("no Delta table at")
                .hasMessageContaining("nothing");
        assertThatThrownBy(() -> table.append(QUERY, 0, List.of()))
                .hasMessageContaining("no Delta table at");
    }
}
