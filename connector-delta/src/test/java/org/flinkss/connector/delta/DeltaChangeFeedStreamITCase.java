package org.flinkss.connector.delta;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.sink.delta.MergeCommit;
import org.flinkss.runtime.table.delta.ChangeDataFeed;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code DeltaSource.forRowData(path).readChangeFeed().version(N).buildStream(...)} at parallelism
 * 2: each version's changes from version N on (inserts, update pre- and post-images, deletes, as
 * {@link MergeCommit} writes them), each once, with Spark's {@code _change_type} and {@code
 * _commit_version}, versions committed while the job runs included; a table without the feed is
 * refused when built.
 */
class DeltaChangeFeedStreamITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = MiniClusters.create();

    private static final String QUERY = "6a0c1f5e-2b8d-4e3a-9c7f-1d2e3f4a5b6c";
    private static final RowType ROWS =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE},
                    new String[] {"id", "name"});

    @TempDir java.nio.file.Path dir;

    @Test
    void eachVersionsChangesFromTheStartingVersionAreReadOnce() throws Exception {
        DeltaTable table = DeltaTable.forPath(dir.resolve("latest").toUri().toString());
        table.create(ROWS, Map.of(ChangeDataFeed.PROPERTY, "true")); // version 0
        MergeCommit merge = new MergeCommit(ROWS, List.of("id"));
        merge.commit(table, QUERY, 0, batch(rows(1, 300, "a", RowKind.INSERT))); // version 1

        DeltaStreamSource source =
                DeltaSource.forRowData(table.path())
                        .readChangeFeed()
                        .version(1)
                        .buildStream(Duration.ofMillis(100));
        assertThat(source.changeFeed()).isTrue();
        assertThat(source.rowType().getFieldNames())
                .containsExactly(
                        "id", "name", "_change_type", "_commit_version", "_commit_timestamp");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        List<String> changes = new ArrayList<>();
        try (CloseableIterator<String> rows =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "delta changes")
                        .map(
                                r -> r.getString(2) + " " + r.getLong(0) + " v" + r.getLong(3),
                                Types.STRING)
                        .executeAndCollect()) {
            take(rows, 300, changes);
            // Step 2: an update of 100 ids and 50 new ones, then a delete, while the job runs.
            List<RowData> second = new ArrayList<>(rows(1, 100, "b", RowKind.INSERT));
            second.addAll(rows(301, 350, "b", RowKind.INSERT));
            merge.commit(table, QUERY, 1, batch(second)); // version 2
            merge.commit(table, QUERY, 2, batch(rows(301, 310, "b", RowKind.DELETE))); // 3
            take(rows, 100 + 100 + 50 + 10, changes);
        }

        assertThat(changes).doesNotHaveDuplicates().hasSize(560);
        assertThat(changes).filteredOn(c -> c.startsWith("insert ")).hasSize(350);
        assertThat(changes)
                .contains("insert 1 v1", "update_preimage 1 v2", "update_postimage 1 v2");
        assertThat(changes).filteredOn(c -> c.startsWith("update_postimage ")).hasSize(100);
        assertThat(changes)
                .filteredOn(c -> c.startsWith("delete "))
                .containsOnly(deletes().toArray(String[]::new));
    }

    @Test
    void aTableWithoutTheFeedOrABoundedReadOfTheFeedIsRefusedWhenBuilt() {
        DeltaTable plain = DeltaTable.forPath(dir.resolve("plain").toUri().toString());
        plain.create(ROWS, Map.of());

        assertThatThrownBy(
                        () ->
                                DeltaSource.forRowData(plain.path())
                                        .readChangeFeed()
                                        .buildStream(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no change data feed")
                .hasMessageContaining(ChangeDataFeed.PROPERTY);
        assertThatThrownBy(() -> DeltaSource.forRowData(plain.path()).readChangeFeed().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("buildStream");
    }

    private static List<String> deletes() {
        List<String> out = new ArrayList<>();
        for (long id = 301; id <= 310; id++) {
            out.add("delete " + id + " v3");
        }
        return out;
    }

    private static void take(CloseableIterator<String> rows, int n, List<String> into) {
        for (int i = 0; i < n; i++) {
            into.add(rows.next());
        }
    }

    private static List<RowData> rows(long from, long to, String name, RowKind kind) {
        List<RowData> out = new ArrayList<>();
        for (long id = from; id <= to; id++) {
            GenericRowData row = GenericRowData.of(id, StringData.fromString(name));
            row.setRowKind(kind);
            out.add(row);
        }
        return out;
    }

    /** The rows as one change set, as the runtime's writers hand one to {@link MergeCommit}. */
    private static List<byte[]> batch(List<RowData> rows) throws IOException {
        RowDataSerializer serializer = new RowDataSerializer(ROWS);
        DataOutputSerializer out = new DataOutputSerializer(1024);
        out.writeInt(rows.size());
        for (RowData row : rows) {
            serializer.serialize(row, out);
        }
        return List.of(out.getCopyOfBuffer());
    }
}
