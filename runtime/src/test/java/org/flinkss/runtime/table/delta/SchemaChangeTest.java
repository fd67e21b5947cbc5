package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HistoryEntry#schemaChange}: the commits of a real local Delta table that change its schema
 * or constraints say what they changed; data commits say nothing.
 */
class SchemaChangeTest {

    private static final String QUERY = "6f1c0a4e-query-bronze";

    private static final RowType BASE =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE},
                    new String[] {"event_id", "event_type"});

    @TempDir java.nio.file.Path dir;

    @Test
    void schemaEvolutionAndConstraintCommitsSayWhatTheyChanged() throws Exception {
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
        table.create(BASE, Map.of());
        Path folder = new Path(table.path());
        table.append(
                QUERY,
                0,
                List.of(
                        DataFiles.write(
                                folder,
                                BASE,
                                List.of(GenericRowData.of(1L, StringData.fromString("view"))))));
        RowType grown =
                SchemaGrowth.union(
                        BASE,
                        List.of(new RowType.RowField("channel", VarCharType.STRING_TYPE)),
                        "t",
                        "test");
        table.appendWithSchema(
                QUERY,
                1,
                List.of(
                        DataFiles.write(
                                folder,
                                grown,
                                List.of(
                                        GenericRowData.of(
                                                2L,
                                                StringData.fromString("buy"),
                                                StringData.fromString("web"))))),
                grown);
        long added = table.constraints().add("early_id", "event_id < 700", table.version());
        table.constraints().setNotNull("event_id", table.version());
        table.constraints().drop("early_id");

        // Newest first: DROP CONSTRAINT, CHANGE COLUMN, ADD CONSTRAINT, the batch that grew the
        // schema, the first batch, the creation.
        List<HistoryEntry> history = table.history(10);
        assertThat(history)
                .extracting(HistoryEntry::schemaChange)
                .containsExactly(
                        "constraint -early_id",
                        "NOT NULL +event_id",
                        "constraint +early_id",
                        "schema: +channel STRING",
                        "",
                        "");
        assertThat(history.get(2).version()).isEqualTo(added);
    }
}
