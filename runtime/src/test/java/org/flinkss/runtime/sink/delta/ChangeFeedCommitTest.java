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

import org.flinkss.runtime.table.delta.ChangeDataFeed;
import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.FeedRow;
import org.flinkss.runtime.table.delta.OperationInfo;
import org.flinkss.runtime.table.delta.TableChangedException;
import org.flinkss.runtime.table.delta.VacuumResult;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The change data feed of {@link MergeCommit} and {@link CompleteCommit} on a real local Delta
 * table created with {@code delta.enableChangeDataFeed}, as delta-spark writes it: an insert-only
 * MERGE has no change data file (its adds are the feed), an update writes pre- and post-images, a
 * delete its old row, a replayed batch nothing, a complete commit deletes the old result and
 * inserts the new one.
 */
class ChangeFeedCommitTest {

    private static final String QUERY = "5d0c8a3e-1b7f-4c2a-8e9d-6f4a3b2c1d0e";
    private static final RowType ROW_TYPE =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE, new DoubleType()},
                    new String[] {"event_id", "event_type", "amount"});
    private static final Map<String, String> WITH_FEED = Map.of(ChangeDataFeed.PROPERTY, "true");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    private DeltaTable table;
    private final MergeCommit merge = new MergeCommit(ROW_TYPE, List.of("event_id"));

    @BeforeEach
    void createTable() {
        table = DeltaTable.forPath(dir.resolve("events_latest").toUri().toString());
        assertThat(table.create(ROW_TYPE, WITH_FEED)).isZero();
    }

    @Test
    void aNewTableWithTheFeedHasWriterVersion4AndTheProperty() throws IOException {
        JsonNode protocol = action(0, "protocol");
        assertThat(protocol.path("minReaderVersion").asInt()).isEqualTo(1);
        assertThat(protocol.path("minWriterVersion").asInt()).isEqualTo(4);
        assertThat(
                        action(0, "metaData")
                                .path("configuration")
                                .path(ChangeDataFeed.PROPERTY)
                                .asText())
                .isEqualTo("true");
        assertThat(table.hasChangeFeed()).isTrue();
        assertThat(table.rowType()).isEqualTo(ROW_TYPE);
        // Created again by a second run: left as it is.
        assertThat(table.create(ROW_TYPE, WITH_FEED)).isZero();
    }

    @Test
    void anInsertOnlyMergeWritesNoChangeDataFileAndItsAddsAreTheFeed() throws IOException {
        CommitResult result = commit(merge, 0, row(1, "view", 1.0), row(2, "view", 2.0));

        assertThat(result.committed()).isTrue();
        assertThat(actions(result.version(), "cdc")).isEmpty();
        assertThat(changeDataFiles()).isEmpty();
        assertThat(actions(result.version(), "add")).hasSize(1);
        assertThat(actions(result.version(), "add").get(0).path("dataChange").asBoolean()).isTrue();
        assertThat(feed(result.version()))
                .containsExactlyInAnyOrder("insert 1 view 1.0", "insert 2 view 2.0");
    }

    @Test
    void anUpdateWritesPreAndPostImagesAndTheBatchInsertsInOneChangeDataFile() throws IOException {
        commit(merge, 0, row(1, "view", 1.0), row(2, "view", 2.0));

        CommitResult result = commit(merge, 1, row(2, "buy", 20.0), row(3, "click", 3.0));

        List<JsonNode> cdc = actions(result.version(), "cdc");
        assertThat(cdc).hasSize(1);
        assertThat(cdc.get(0).path("path").asText()).startsWith(ChangeDataFeed.FOLDER + "/");
        assertThat(cdc.get(0).path("dataChange").asBoolean()).isFalse();
        assertThat(cdc.get(0).path("size").asLong()).isPositive();
        assertThat(changeDataFiles()).hasSize(1);
        assertThat(feed(result.version()))
                .containsExactlyInAnyOrder(
                        "update_preimage 2 view 2.0",
                        "update_postimage 2 buy 20.0",
                        "insert 3 click 3.0");
        // The table itself is as MERGE leaves it.
        assertThat(table.snapshot().count()).isEqualTo(3);
        assertThat(action(result.version(), "commitInfo").path("operation").asText())
                .isEqualTo("MERGE");
        assertThat(action(result.version(), "txn").path("version").asLong()).isEqualTo(1);
    }

    @Test
    void vacuumDeletesAChangeDataFileOnceItIsOlderThanTheRetentionAsDeltasVacuumDoes()
            throws IOException {
        commit(merge, 0, row(1, "view", 1.0), row(2, "view", 2.0));
        commit(merge, 1, row(2, "buy", 20.0));
        List<Path> cdc = changeDataFiles();
        assertThat(cdc).hasSize(1);

        // Within the retention: kept.
        VacuumResult recent = table.vacuum(DeltaTable.DEFAULT_RETENTION, false, false);
        assertThat(recent.deleted()).isEmpty();
        assertThat(changeDataFiles()).isEqualTo(cdc);

        // Eight days old: deleted (and only it: the table's files are referenced, the file the
        // MERGE rewrote was removed a moment ago), the table read as before.
        Files.setLastModifiedTime(
                cdc.get(0), FileTime.from(Instant.now().minus(Duration.ofDays(8))));
        VacuumResult old = table.vacuum(DeltaTable.DEFAULT_RETENTION, false, false);
        assertThat(old.deleted())
                .singleElement()
                .asString()
                .contains(ChangeDataFeed.FOLDER + "/")
                .endsWith(cdc.get(0).getFileName().toString());
        assertThat(changeDataFiles()).isEmpty();
        assertThat(table.snapshot().count()).isEqualTo(2);
    }

    @Test
    void aDeleteWritesTheDeletedRow() throws IOException {
        commit(merge, 0, row(1, "view", 1.0), row(2, "view", 2.0));
        RowData delete = row(1, "view", 1.0);
        delete.setRowKind(RowKind.DELETE);

        CommitResult result = commit(merge, 1, delete);

        assertThat(feed(result.version())).containsExactly("delete 1 view 1.0");
        assertThat(table.snapshot().count()).isEqualTo(1);
    }

    @Test
    void aReplayedBatchCommitsNothingAndWritesNoSecondFeed() throws IOException {
        commit(merge, 0, row(1, "view", 1.0));
        CommitResult first = commit(merge, 1, row(1, "buy", 10.0));
        long files = changeDataFiles().size();

        CommitResult replay = commit(merge, 1, row(1, "buy", 10.0));

        assertThat(replay.committed()).isFalse();
        assertThat(table.version()).isEqualTo(first.version());
        assertThat(changeDataFiles()).hasSize((int) files);
        assertThat(feed(0, table.version()))
                .containsExactlyInAnyOrder(
                        "insert 1 view 1.0",
                        "update_preimage 1 view 1.0",
                        "update_postimage 1 buy 10.0");
    }

    @Test
    void aCompleteCommitDeletesTheOldResultAndInsertsTheNewOneAsSparksDeltaSinkDoes()
            throws IOException {
        CompleteCommit complete = new CompleteCommit(ROW_TYPE, List.of("event_id"));
        commit(complete, 0, row(1, "view", 1.0), row(2, "view", 2.0));

        CommitResult result = commit(complete, 1, row(2, "view", 5.0));

        assertThat(actions(result.version(), "cdc")).isEmpty();
        assertThat(feed(result.version()))
                .containsExactlyInAnyOrder(
                        "delete 1 view 1.0",
                        "delete 2 view 2.0",
                        "insert 1 view 1.0",
                        "insert 2 view 5.0");
        // A batch with no change commits its txn alone: no rows in the feed.
        CommitResult empty = commit(complete, 2);
        assertThat(empty.committed()).isTrue();
        assertThat(feed(empty.version())).isEmpty();
        assertThat(commit(complete, 2).committed()).isFalse();
    }

    @Test
    void theFeedCarriesEachVersionAndItsCommitTime() throws IOException {
        CommitResult first = commit(merge, 0, row(1, "view", 1.0));
        CommitResult second = commit(merge, 1, row(1, "buy", 1.5));

        List<FeedRow> rows = table.changes(0, table.version());

        assertThat(rows)
                .extracting(FeedRow::version)
                .containsExactly(first.version(), second.version(), second.version());
        assertThat(rows.get(0).timestamp())
                .isEqualTo(
                        table.history(10)
                                .get((int) (table.version() - first.version()))
                                .timestamp());
    }

    @Test
    void aTableWithoutTheFeedIsRefusedNamingItAndWhatToDo() {
        DeltaTable plain = DeltaTable.forPath(dir.resolve("events_5min").toUri().toString());
        plain.create(ROW_TYPE, Map.of());

        assertThat(plain.hasChangeFeed()).isFalse();
        assertThatThrownBy(() -> plain.changes(0, 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("events_5min")
                .hasMessageContaining("has no change data feed")
                .hasMessageContaining("reset <query>");
    }

    @Test
    void replacingATableKeepsItsFeedAndRemovesItsRows() throws IOException {
        commit(merge, 0, row(1, "view", 1.0));

        long version = table.replace(ROW_TYPE, WITH_FEED);

        assertThat(table.snapshot().count()).isZero();
        assertThat(table.hasChangeFeed()).isTrue();
        assertThat(feed(version)).containsExactly("delete 1 view 1.0");
    }

    @Test
    void replacingATableWithoutTheFeedTurnsItOnWithWriterVersion4() throws IOException {
        DeltaTable plain = DeltaTable.forPath(dir.resolve("events_5min").toUri().toString());
        plain.create(ROW_TYPE, Map.of());

        long version = plain.replace(ROW_TYPE, WITH_FEED);

        assertThat(plain.hasChangeFeed()).isTrue();
        JsonNode protocol = action(plain, version, "protocol");
        assertThat(protocol.path("minWriterVersion").asInt()).isEqualTo(4);
    }

    @Test
    void aMergePlannedOnAnOlderVersionIsRefusedAndCommitsNothing() throws IOException {
        commit(merge, 0, row(1, "view", 1.0));
        long planned = table.version() - 1;

        assertThatThrownBy(
                        () ->
                                table.merge(
                                        QUERY,
                                        1,
                                        planned,
                                        Set.of(),
                                        List.of(),
                                        List.of(),
                                        new OperationInfo("MERGE", Map.of(), Map.of())))
                .isInstanceOf(TableChangedException.class);
        assertThat(table.committedBatch(QUERY)).hasValue(0);
    }

    @Test
    void settingPropertiesKeepsTheFeedOn() throws IOException {
        table.setProperties(Map.of("flinkss.writer", "latest"));

        assertThat(table.properties())
                .containsEntry(ChangeDataFeed.PROPERTY, "true")
                .containsEntry("flinkss.writer", "latest");
        assertThat(table.hasChangeFeed()).isTrue();
        // Still written with its feed afterwards.
        CommitResult result = commit(merge, 0, row(1, "view", 1.0));
        assertThat(feed(result.version())).containsExactly("insert 1 view 1.0");
    }

    @Test
    void aRewriteOutsideAStreamIsInTheFeedAsDeletesAndInserts() throws IOException {
        commit(merge, 0, row(1, "view", 1.0));
        String old = table.snapshot().files().get(0).name();
        DataFile replacement =
                DataFiles.writeFile(
                        new org.apache.flink.core.fs.Path(table.path(), "recomputed.parquet"),
                        ROW_TYPE,
                        List.of(row(1, "view", 1.5)));

        long version = table.rewrite(Set.of(old), List.of(replacement));

        assertThat(feed(version))
                .containsExactlyInAnyOrder("delete 1 view 1.0", "insert 1 view 1.5");
        assertThat(actions(version, "txn")).isEmpty();
    }

    // ---------------------------------------------------------------- helpers

    private CommitResult commit(TableCommit commit, long batchId, RowData... rows)
            throws IOException {
        return commit.commit(
                table, QUERY, batchId, List.of(ChangeSetBytes.of(ROW_TYPE, List.of(rows))));
    }

    private static RowData row(long id, String type, double amount) {
        return GenericRowData.of(id, StringData.fromString(type), amount);
    }

    private List<String> feed(long version) {
        return feed(version, version);
    }

    private List<String> feed(long from, long to) {
        List<String> out = new ArrayList<>();
        for (FeedRow r : table.changes(from, to)) {
            out.add(
                    r.changeType().text()
                            + " "
                            + r.row().getLong(0)
                            + " "
                            + r.row().getString(1)
                            + " "
                            + r.row().getDouble(2));
        }
        return out;
    }

    private List<Path> changeDataFiles() throws IOException {
        Path folder = dir.resolve("events_latest").resolve(ChangeDataFeed.FOLDER);
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(f -> f.toString().endsWith(".parquet")).toList();
        }
    }

    private JsonNode action(long version, String kind) throws IOException {
        return action(table, version, kind);
    }

    private JsonNode action(DeltaTable t, long version, String kind) throws IOException {
        List<JsonNode> found = actions(t, version, kind);
        assertThat(found).as(kind + " in version " + version).hasSize(1);
        return found.get(0);
    }

    private List<JsonNode> actions(long version, String kind) throws IOException {
        return actions(table, version, kind);
    }

    private static List<JsonNode> actions(DeltaTable t, long version, String kind)
            throws IOException {
        Path log =
                Path.of(java.net.URI.create(t.path()))
                        .resolve("_delta_log")
                        .resolve(String.format("%020d.json", version));
        List<JsonNode> found = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            JsonNode n = JSON.readTree(line);
            if (n.has(kind)) {
                found.add(n.get(kind));
            }
        }
        return found;
    }
}
