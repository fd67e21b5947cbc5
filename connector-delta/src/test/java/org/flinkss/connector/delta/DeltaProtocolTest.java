package org.flinkss.connector.delta;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.connector.delta.internal.TableFeatures;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the README's "Delta protocol" section says, checked: the protocol a table created here gets,
 * and the features the sink and the source refuse.
 */
class DeltaProtocolTest {

    private static final RowType ROWS =
            RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"id"});

    @TempDir Path dir;

    @Test
    void aTableCreatedHereHasReaderVersion1AndWriterVersion2() throws Exception {
        String path = dir.resolve("t").toUri().toString();
        DeltaTable.forPath(path).create(ROWS, Map.of());

        String first = Files.readString(dir.resolve("t/_delta_log/00000000000000000000.json"));
        assertThat(first).contains("\"minReaderVersion\":1").contains("\"minWriterVersion\":2");
        assertThat(first).doesNotContain("readerFeatures").doesNotContain("writerFeatures");
    }

    @Test
    void columnMappingIsRefusedBySinkAndSource() {
        String path = dir.resolve("t").toUri().toString();
        assertThatThrownBy(
                        () ->
                                DeltaSink.forRowData(path, ROWS)
                                        .tableProperty(TableFeatures.COLUMN_MAPPING, "name")
                                        .build())
                .hasMessageContaining("Delta sink for '" + path + "'")
                .hasMessageContaining("delta.columnMapping.mode = name");
        DeltaTable.forPath(path).create(ROWS, Map.of());
        DeltaTable.forPath(path).setProperties(Map.of(TableFeatures.COLUMN_MAPPING, "name"));
        assertThatThrownBy(() -> DeltaSource.forRowData(path).build())
                .hasMessageContaining("Delta source for '" + path + "'")
                .hasMessageContaining("use a table without column mapping");
    }

    @Test
    void deletionVectorsAreRefusedBySinkAndSource() {
        String path = dir.resolve("t").toUri().toString();
        DeltaTable.forPath(path).create(ROWS, Map.of());
        DeltaTable.forPath(path).setProperties(Map.of(TableFeatures.DELETION_VECTORS, "true"));
        assertThatThrownBy(() -> DeltaSink.forRowData(path, ROWS).build())
                .hasMessageContaining("delta.enableDeletionVectors = true");
        assertThatThrownBy(() -> DeltaSource.forRowData(path).build())
                .hasMessageContaining("use a table without deletion vectors");
    }
}
