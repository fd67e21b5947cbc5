package org.flinkss.runtime.table;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.ResetMarker;
import org.flinkss.runtime.storage.Storage;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A table that still records its query's checkpoint from before a reset that was killed: the
 * refusal names {@code reset <query>} as the way out, not a second base (issue 38, point 5).
 */
class ResetCutShortRefusalTest {

    private static final RowType ROWS = RowType.of(new BigIntType());

    @TempDir Path base;

    @Test
    void aWriterWhoseCheckpointHoldsAResetCutShortIsToldToCompleteTheReset() {
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        CheckpointLayout layout = CheckpointLayout.of(Storage.location(base.toFile()), "win5");
        TableOwner before = TableOwner.ofCheckpoint("win5", "id-before", layout, warehouse);
        TableOwner after = TableOwner.ofCheckpoint("win5", "id-after", layout, warehouse);
        warehouse.own("events_5min", ROWS, before, TableMode.APPENDED);

        // Without a reset under way: another checkpoint's id, the refusal of a second base.
        assertThatThrownBy(() -> warehouse.own("events_5min", ROWS, after, TableMode.APPENDED))
                .hasMessageContaining("Two bases sharing one --warehouse?");

        // A reset killed before it handed the table to the new id: the way out is to complete it.
        new ResetMarker(
                        "win5",
                        "id-before",
                        "id-after",
                        List.of("events_5min"),
                        List.of(),
                        Instant.parse("2026-12-05T12:00:00Z"))
                .write(layout);
        assertThatThrownBy(() -> warehouse.own("events_5min", ROWS, after, TableMode.APPENDED))
                .hasMessageContaining("a reset of query 'win5' was cut short")
                .hasMessageContaining("run 'reset win5' to complete it")
                .hasMessageNotContaining("Two bases");
    }
}
