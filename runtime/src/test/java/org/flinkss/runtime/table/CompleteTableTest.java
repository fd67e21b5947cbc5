package org.flinkss.runtime.table;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class CompleteTableTest {

    private static final RowType TYPE =
            TableDef.columns(
                    List.of("window_start", "window_end", "event_type", "events", "amount"),
                    new LocalZonedTimestampType(3),
                    new LocalZonedTimestampType(3),
                    VarCharType.STRING_TYPE,
                    new BigIntType(),
                    new DoubleType());
    private static final List<String> KEY = List.of("window_start", "window_end", "event_type");

    @TempDir Path dir;

    private static RowData row(long start, String type, long events, double amount, RowKind kind) {
        GenericRowData row =
                GenericRowData.of(
                        TimestampData.fromEpochMillis(start),
                        TimestampData.fromEpochMillis(start + 300_000),
                        type == null ? null : StringData.fromString(type),
                        events,
                        amount);
        row.setRowKind(kind);
        return row;
    }

    @Test
    void eachCommitReplacesTheWholeResultAndAReplayedBatchLeavesTheSameTable() throws Exception {
        Warehouse warehouse = new Warehouse(dir);
        warehouse.declare("w", TYPE, "test", Warehouse.REPLACED);
        CompleteTable table = new CompleteTable(warehouse, "w", TYPE, KEY);

        table.apply(
                List.of(
                        row(0, "view", 1, 1.0, RowKind.INSERT),
                        row(0, null, 1, 2.0, RowKind.INSERT),
                        row(300_000, "buy", 1, 3.0, RowKind.INSERT)),
                0);
        List<RowData> batch1 =
                List.of(
                        row(0, "view", 2, 5.0, RowKind.UPDATE_AFTER),
                        row(0, null, 4, 4.0, RowKind.INSERT),
                        row(300_000, "buy", 1, 3.0, RowKind.DELETE));
        table.apply(batch1, 1);
        List<List<Object>> afterBatch1 = warehouse.sortedValues("w");
        assertThat(afterBatch1)
                .containsExactly(
                        Arrays.asList(Instant.EPOCH, Instant.ofEpochMilli(300_000), null, 4L, 4.0),
                        List.of(Instant.EPOCH, Instant.ofEpochMilli(300_000), "view", 2L, 5.0));

        table.apply(batch1, 1);
        assertThat(warehouse.sortedValues("w")).isEqualTo(afterBatch1);
        // The pointer names one file; the one before it is kept for readers still on it, older ones
        // are gone.
        assertThat(warehouse.partFiles("w"))
                .hasSize(1)
                .allSatisfy(
                        f -> assertThat(f.getFileName().toString()).startsWith("part-complete-1-"));
        try (Stream<Path> files = Files.list(warehouse.tablePath("w"))) {
            assertThat(
                            files.map(p -> p.getFileName().toString())
                                    .filter(n -> n.startsWith(CompleteTable.PREFIX)))
                    .hasSize(2)
                    .allSatisfy(n -> assertThat(n).startsWith("part-complete-1-"));
        }
        assertThat(warehouse.writtenBy("w")).isEqualTo(Warehouse.REPLACED);
    }
}
