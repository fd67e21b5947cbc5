package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Adding nullable columns to a real local Delta table, alone or with a batch's data. */
class SchemaGrowthTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String QUERY = "6f1c0a4e-query-bronze";

    private static final RowType BASE =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE},
                    new String[] {"event_id", "event_type"});

    private static final RowType GROWN =
            SchemaGrowth.union(
                    BASE,
                    List.of(new RowType.RowField("channel", VarCharType.STRING_TYPE)),
                    "t",
                    "test");

    @TempDir java.nio.file.Path dir;

    private DeltaTable table() {
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
        table.create(BASE, Map.of());
        return table;
    }

    private List<JsonNode> logEntry(long version) throws Exception {
        return DeltaTableTest.logEntry(dir.resolve("t"), version);
    }

    private static long count(List<JsonNode> actions, String kind) {
        return actions.stream().filter(a -> a.has(kind)).count();
    }

    private static RowData row(long id, String type) {
        return GenericRowData.of(id, StringData.fromString(type));
    }

    private static RowData row(long id, String type, String channel) {
        return GenericRowData.of(id, StringData.fromString(type), StringData.fromString(channel));
    }

    @Test
    void aBatchWithANewColumnIsOneCommitOfSchemaDataAndTxnAndEarlierRowsReadNull()
            throws Exception {
        DeltaTable table = table();
        Path folder = new Path(table.path());
        table.append(QUERY, 0, List.of(DataFiles.write(folder, BASE, List.of(row(1, "view")))));
        DataFile grownFile = DataFiles.write(folder, GROWN, List.of(row(2, "buy", "web")));

        CommitResult result = table.appendWithSchema(QUERY, 1, List.of(grownFile), GROWN);

        // Step 1: one log entry holds the new schema, the file and the batch's txn.
        assertThat(result.committed()).isTrue();
        assertThat(result.version()).isEqualTo(2);
        List<JsonNode> entry = logEntry(2);
        assertThat(count(entry, "metaData")).isEqualTo(1);
        assertThat(count(entry, "add")).isEqualTo(1);
        assertThat(count(entry, "txn")).isEqualTo(1);
        JsonNode schema =
                JSON.readTree(
                        entry.stream()
                                .filter(a -> a.has("metaData"))
                                .findFirst()
                                .orElseThrow()
                                .get("metaData")
                                .get("schemaString")
                                .asText());
        assertThat(schema.get("fields").findValuesAsText("name"))
                .containsExactly("event_id", "event_type", "channel");
        // Step 2: the table reads with the grown columns; the first batch's row has null there.
        assertThat(table.rowType()).isEqualTo(GROWN);
        assertThat(TestRows.values(table.snapshot().rows(), GROWN))
                .containsExactlyInAnyOrder(
                        Arrays.asList(1L, "view", null), List.of(2L, "buy", "web"));
        assertThat(TestRows.readWithKernel(table.path()))
                .containsExactlyInAnyOrder(
                        Arrays.asList(1L, "view", null), List.of(2L, "buy", "web"));
        // Step 3: the batch replayed is skipped, and the schema is not committed again.
        assertThat(table.appendWithSchema(QUERY, 1, List.of(grownFile), GROWN).committed())
                .isFalse();
        assertThat(table.version()).isEqualTo(2);
    }

    @Test
    void addColumnsIsACommitOfItsOwnWithNoData() throws Exception {
        DeltaTable table = table();
        table.append(
                QUERY,
                0,
                List.of(DataFiles.write(new Path(table.path()), BASE, List.of(row(1, "view")))));

        assertThat(table.addColumns(GROWN)).isEqualTo(2);

        List<JsonNode> entry = logEntry(2);
        assertThat(count(entry, "metaData")).isEqualTo(1);
        assertThat(count(entry, "add")).isZero();
        assertThat(table.rowType()).isEqualTo(GROWN);
        assertThat(table.snapshot().count()).isEqualTo(1);
    }

    @Test
    void anythingButNullableColumnsAddedAtTheEndIsRefusedAndChangesNothing() {
        DeltaTable table = table();
        RowType reordered =
                RowType.of(
                        new LogicalType[] {VarCharType.STRING_TYPE, new BigIntType()},
                        new String[] {"event_type", "event_id"});

        assertThatThrownBy(() -> table.addColumns(reordered))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not only add nullable columns");
        assertThat(table.version()).isZero();
        assertThatThrownBy(
                        () ->
                                SchemaGrowth.union(
                                        GROWN,
                                        List.of(new RowType.RowField("channel", new BigIntType())),
                                        "events_bronze",
                                        "data file x.parquet"))
                .hasMessageStartingWith(
                        "column 'channel' is STRING in table 'events_bronze' but BIGINT in data"
                                + " file x.parquet");
        assertThat(SchemaGrowth.union(GROWN, List.of(GROWN.getFields().get(2)), "t", "w"))
                .isSameAs(GROWN);
    }
}
