package org.flinkss.runtime.sink.delta;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MergeCommit} on a real local Delta table: each batch one commit with its {@code txn},
 * operation {@code MERGE} and Delta's metrics; only the files that hold a matched key rewritten; a
 * replayed batch skipped; a null key a row of its own; of several rows of one key the last wins.
 */
class MergeCommitTest {

    private static final String QUERY = "0b5e4c8a-7d1f-4e0a-9a52-3c1d2e4f5a6b";
    private static final RowType ROW_TYPE =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE, new DoubleType()},
                    new String[] {"event_id", "event_type", "amount"});
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir java.nio.file.Path dir;

    private DeltaTable table;
    private final MergeCommit merge = new MergeCommit(ROW_TYPE, List.of("event_id"));

    @BeforeEach
    void createTable() {
        table = DeltaTable.forPath(dir.resolve("events_latest").toUri().toString());
        table.create(ROW_TYPE, Map.of());
    }

    @Test
    void anInsertOnlyBatchAddsOneFileAndCountsItsRowsAsInserted() throws Exception {
        CommitResult result = commit(0, rows(0, 5, "view", 1.0));

        assertThat(result.committed()).isTrue();
        assertThat(table.snapshot().files()).hasSize(1);
        assertThat(contents()).containsOnlyKeys(0L, 1L, 2L, 3L, 4L);
        JsonNode info = commitInfo(result.version());
        assertThat(info.path("operation").asText()).isEqualTo("MERGE");
        assertThat(metrics(info))
                .containsEntry("numSourceRows", 5L)
                .containsEntry("numTargetRowsInserted", 5L)
                .containsEntry("numTargetRowsUpdated", 0L)
                .containsEntry("numTargetRowsCopied", 0L)
                .containsEntry("numTargetFilesAdded", 1L)
                .containsEntry("numTargetFilesRemoved", 0L);
        assertThat(info.path("operationParameters").path("predicate").asText())
                .isEqualTo("[\"(t.event_id = s.event_id)\"]");
        JsonNode txn = action(result.version(), "txn");
        assertThat(txn.path("appId").asText()).isEqualTo(QUERY);
        assertThat(txn.path("version").asLong()).isEqualTo(0);
        assertThat(table.history(1).get(0).operation()).isEqualTo("MERGE");
    }

    @Test
    void anUpdateRewritesOnlyTheFilesThatHoldAMatchedKeyAndLeavesTheOthersUntouched()
            throws Exception {
        // Step 1: three files; ids 0-9 even in the first, odd in the second, 10-19 in the third.
        commit(0, evens());
        commit(1, odds());
        commit(2, rows(10, 20, "view", 1.0));
        Map<Long, String> namesBefore = fileNamesByFirstId();

        // Step 2: update 5 (odd file: the even file's statistics cover 5, its keys do not) and
        // 15 (third file), insert 30.
        CommitResult result =
                commit(
                        3,
                        List.of(
                                row(5L, "buy", 50.0),
                                row(15L, "buy", 150.0),
                                row(30L, "click", 3.0)));

        Set<String> removed = names(result.version(), "remove");
        assertThat(removed).containsExactlyInAnyOrder(namesBefore.get(1L), namesBefore.get(10L));
        assertThat(table.snapshot().files().stream().map(DataFile::name))
                .contains(namesBefore.get(0L))
                .hasSize(4); // the even file, two rewritten, one of inserts
        Map<Long, String> contents = contents();
        assertThat(contents).hasSize(21);
        assertThat(contents).containsEntry(5L, "buy/50.0").containsEntry(15L, "buy/150.0");
        assertThat(contents).containsEntry(30L, "click/3.0").containsEntry(7L, "view/1.0");
        assertThat(metrics(commitInfo(result.version())))
                .containsEntry("numSourceRows", 3L)
                .containsEntry("numTargetRowsUpdated", 2L)
                .containsEntry("numTargetRowsInserted", 1L)
                .containsEntry("numTargetRowsCopied", 4L + 9L)
                .containsEntry("numTargetFilesRemoved", 2L)
                .containsEntry("numTargetFilesAdded", 3L)
                .containsEntry("numOutputRows", 2L + 1L + 13L);
    }

    @Test
    void aReplayedBatchIsSkippedAndChangesNothing() throws Exception {
        commit(0, rows(0, 3, "view", 1.0));
        long version = table.version();

        CommitResult replay = commit(0, rows(0, 3, "buy", 9.0));

        assertThat(replay.committed()).isFalse();
        assertThat(replay.committedBatch()).isEqualTo(0);
        assertThat(table.version()).isEqualTo(version);
        assertThat(contents()).containsEntry(1L, "view/1.0").hasSize(3);
        assertThat(dataFilesOnDisk()).isEqualTo(table.snapshot().files().size());
    }

    @Test
    void aNullKeyIsARowOfItsOwnNeverMatched() throws Exception {
        commit(0, List.of(row(null, "view", 1.0), row(null, "click", 2.0), row(1L, "view", 3.0)));
        CommitResult second = commit(1, List.of(row(null, "buy", 4.0), row(1L, "buy", 5.0)));

        List<RowData> rows = table.snapshot().rows();
        assertThat(rows.stream().filter(r -> r.isNullAt(0)).map(r -> r.getDouble(2)))
                .containsExactlyInAnyOrder(1.0, 2.0, 4.0);
        assertThat(contents()).containsExactly(Map.entry(1L, "buy/5.0"));
        assertThat(metrics(commitInfo(second.version())))
                .containsEntry("numTargetRowsInserted", 1L)
                .containsEntry("numTargetRowsUpdated", 1L)
                .containsEntry("numTargetRowsCopied", 2L);
    }

    @Test
    void ofSeveralRowsOfOneKeyInABatchTheLastWins() throws Exception {
        CommitResult first =
                commit(
                        0,
                        List.of(row(1L, "view", 1.0), row(1L, "click", 2.0), row(1L, "buy", 3.0)));
        assertThat(contents()).containsExactly(Map.entry(1L, "buy/3.0"));
        assertThat(metrics(commitInfo(first.version())))
                .containsEntry("numSourceRows", 3L)
                .containsEntry("numTargetRowsInserted", 1L);

        CommitResult second = commit(1, List.of(row(1L, "view", 4.0), row(1L, "click", 5.0)));
        assertThat(contents()).containsExactly(Map.entry(1L, "click/5.0"));
        assertThat(metrics(commitInfo(second.version())))
                .containsEntry("numTargetRowsUpdated", 1L)
                .containsEntry("numTargetRowsInserted", 0L);
    }

    @Test
    void aDeleteRemovesItsKeysRowAndAnEmptyBatchCommitsItsTxnOnly() throws Exception {
        commit(0, rows(0, 3, "view", 1.0));
        RowData delete = row(1L, "view", 1.0);
        delete.setRowKind(RowKind.DELETE);
        CommitResult deleted = commit(1, List.of(delete));
        assertThat(contents()).containsOnlyKeys(0L, 2L);
        assertThat(metrics(commitInfo(deleted.version())))
                .containsEntry("numTargetRowsDeleted", 1L)
                .containsEntry("numTargetRowsCopied", 2L);

        long files = table.snapshot().files().size();
        CommitResult empty = commit(2, List.of());
        assertThat(empty.committed()).isTrue();
        assertThat(table.snapshot().files()).hasSize((int) files);
        assertThat(table.committedBatch(QUERY)).hasValue(2);
    }

    @Test
    void statisticsRuleOutAFileWhoseRangeMissesEveryKey() {
        MergeKey key = new MergeKey(ROW_TYPE, List.of("event_id"));
        DataFile file =
                new DataFile(
                        "file:/t/a.parquet",
                        1,
                        0,
                        10,
                        Map.of("event_id", 10L),
                        Map.of("event_id", 19L),
                        Map.of());
        assertThat(key.mayHold(file, List.of(List.of(9L), List.of(20L)))).isFalse();
        assertThat(key.mayHold(file, List.of(List.of(9L), List.of(19L)))).isTrue();
        DataFile noStatistics = DataFile.of("file:/t/b.parquet", 1, 0, 10);
        assertThat(key.mayHold(noStatistics, List.of(List.of(99L)))).isTrue();
    }

    // ---------------------------------------------------------------- helpers

    private CommitResult commit(long batchId, List<RowData> rows) throws IOException {
        return merge.commit(
                table,
                QUERY,
                batchId,
                rows.isEmpty() ? List.of() : List.of(ChangeSetBytes.of(ROW_TYPE, rows)));
    }

    private static RowData row(Long id, String type, double amount) {
        return GenericRowData.of(id, StringData.fromString(type), amount);
    }

    private static List<RowData> rows(long from, long to, String type, double amount) {
        return LongStream.range(from, to).mapToObj(i -> row(i, type, amount)).toList();
    }

    private static List<RowData> evens() {
        return LongStream.range(0, 10)
                .filter(i -> i % 2 == 0)
                .mapToObj(i -> row(i, "view", 1.0))
                .toList();
    }

    private static List<RowData> odds() {
        return LongStream.range(0, 10)
                .filter(i -> i % 2 == 1)
                .mapToObj(i -> row(i, "view", 1.0))
                .toList();
    }

    /** The table's rows with a key: id -> "type/amount". */
    private Map<Long, String> contents() {
        Map<Long, String> byId = new HashMap<>();
        for (RowData r : table.snapshot().rows()) {
            if (!r.isNullAt(0)) {
                byId.put(r.getLong(0), r.getString(1) + "/" + r.getDouble(2));
            }
        }
        return byId;
    }

    /** Each data file's name, by the first id of its rows. */
    private Map<Long, String> fileNamesByFirstId() throws IOException {
        Map<Long, String> names = new HashMap<>();
        for (DataFile f : table.snapshot().files()) {
            RowData first =
                    org.flinkss.runtime.table.delta.DataFiles.read(
                                    new org.apache.flink.core.fs.Path(f.path()), ROW_TYPE)
                            .get(0);
            names.put(first.getLong(0), f.name());
        }
        return names;
    }

    private long dataFilesOnDisk() throws IOException {
        try (var files = Files.list(dir.resolve("events_latest"))) {
            return files.filter(p -> p.toString().endsWith(".parquet")).count();
        }
    }

    private List<JsonNode> actions(long version) throws IOException {
        java.nio.file.Path entry =
                dir.resolve("events_latest")
                        .resolve("_delta_log")
                        .resolve(String.format("%020d.json", version));
        List<JsonNode> actions = new ArrayList<>();
        for (String line : Files.readAllLines(entry)) {
            actions.add(JSON.readTree(line));
        }
        return actions;
    }

    private JsonNode action(long version, String kind) throws IOException {
        return actions(version).stream()
                .filter(a -> a.has(kind))
                .map(a -> a.get(kind))
                .findFirst()
                .orElseThrow();
    }

    private JsonNode commitInfo(long version) throws IOException {
        assertThat(actions(version).stream().filter(a -> a.has("commitInfo"))).hasSize(1);
        return action(version, "commitInfo");
    }

    private Set<String> names(long version, String kind) throws IOException {
        return actions(version).stream()
                .filter(a -> a.has(kind))
                .map(a -> a.get(kind).path("path").asText())
                .map(p -> p.substring(p.lastIndexOf('/') + 1))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Map<String, Long> metrics(JsonNode info) {
        Map<String, Long> metrics = new HashMap<>();
        info.path("operationMetrics")
                .fields()
                .forEachRemaining(
                        e -> metrics.put(e.getKey(), Long.parseLong(e.getValue().asText())));
        return metrics;
    }
}
