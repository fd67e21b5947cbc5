package org.flinkss.runtime.table;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.delta.DataFiles;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link TableMode}: a table's mode is recorded in its properties with the spelling tables have on
 * disk ({@code flinkss.mode} = {@code append} or {@code complete}), read back as the enum, and a
 * writer of the other mode is refused naming both as before.
 */
class TableModeTest {

    private static final RowType ROWS =
            RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"id"});

    @TempDir java.nio.file.Path dir;

    @Test
    void theModesAreSpelledAsTablesRecordThem() {
        assertThat(TableMode.APPENDED.text()).isEqualTo("append");
        assertThat(TableMode.REPLACED.text()).isEqualTo("complete");
        assertThat(TableMode.parse("append")).isEqualTo(TableMode.APPENDED);
        assertThat(TableMode.parse("complete")).isEqualTo(TableMode.REPLACED);
        assertThat(TableMode.of(Map.of())).as("no mode recorded").isEqualTo(TableMode.APPENDED);
        assertThatThrownBy(() -> TableMode.parse("update"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'update'")
                .hasMessageContaining(TableOwner.MODE);
    }

    @Test
    void aTableOwnedInCompleteModeRecordsItAndRefusesAnAppendingWriter() throws Exception {
        Warehouse warehouse = new Warehouse(Storage.location(dir.resolve("warehouse").toFile()));
        TableOwner owner = TableOwner.command("win5");

        warehouse.own("events_5min", ROWS, owner, TableMode.REPLACED);

        assertThat(warehouse.delta("events_5min").properties())
                .containsEntry(TableOwner.MODE, "complete");
        assertThat(warehouse.writtenBy("events_5min")).isEqualTo(TableMode.REPLACED);
        warehouse.own("events_5min", ROWS, owner, TableMode.REPLACED); // the same: accepted
        // A table with rows (an empty one would take the new mode, as after a reset).
        warehouse
                .delta("events_5min")
                .overwrite(
                        "q",
                        0,
                        List.of(
                                DataFiles.write(
                                        new Path(warehouse.folder("events_5min")),
                                        ROWS,
                                        List.of(GenericRowData.of(1L)))));
        assertThatThrownBy(() -> warehouse.own("events_5min", ROWS, owner, TableMode.APPENDED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(
                        "was written in complete mode, and query 'win5' now writes it in append"
                                + " mode");
    }
}
