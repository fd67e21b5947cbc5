package org.flinkss.connector.delta;

import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.table.delta.DeltaTable;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What {@link DeltaSinkBuilder#build} refuses, each in one message naming what to change. */
class DeltaSinkBuilderTest {

    private static final RowType ROWS =
            RowType.of(
                    new LogicalType[] {new BigIntType(), new VarCharType(10)},
                    new String[] {"id", "name"});

    @TempDir Path dir;

    @Test
    void aMissingPathIsRefused() {
        assertThatThrownBy(() -> DeltaSink.forRowData(null, ROWS).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no table path");
        assertThatThrownBy(() -> DeltaSink.forRowData("  ", ROWS).build())
                .hasMessageContaining("no table path");
    }

    @Test
    void noColumnsAreRefused() {
        String path = dir.resolve("t").toString();
        assertThatThrownBy(() -> DeltaSink.forRowData(path, null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(path)
                .hasMessageContaining("no columns");
        assertThatThrownBy(
                        () ->
                                DeltaSink.forRowData(
                                                path, RowType.of(new LogicalType[0], new String[0]))
                                        .build())
                .hasMessageContaining("no columns");
    }

    @Test
    void aColumnTypeDeltaCannotHoldHereIsRefusedByName() {
        String path = dir.resolve("t").toString();
        RowType decimal =
                RowType.of(
                        new LogicalType[] {new BigIntType(), new DecimalType(10, 2)},
                        new String[] {"id", "price"});
        assertThatThrownBy(() -> DeltaSink.forRowData(path, decimal).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(path)
                .hasMessageContaining("column 'price'")
                .hasMessageContaining("use BIGINT, INT, STRING");
        RowType array =
                RowType.of(new LogicalType[] {new ArrayType(new IntType())}, new String[] {"tags"});
        assertThatThrownBy(() -> DeltaSink.forRowData(path, array).build())
                .hasMessageContaining("column 'tags'");
    }

    @Test
    void columnsOtherThanAnExistingTablesAreRefused() {
        String path = dir.resolve("t").toUri().toString();
        DeltaTable.forPath(path)
                .create(
                        RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"id"}),
                        Map.of());
        assertThatThrownBy(() -> DeltaSink.forRowData(path, ROWS).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the table has columns")
                .hasMessageContaining("write rows of the table's columns");
    }

    @Test
    void stringColumnsOfAnyLengthMatchTheTablesStrings() {
        String path = dir.resolve("t").toUri().toString();
        DeltaSink.forRowData(path, ROWS).build();
        DeltaTable.forPath(path)
                .create(
                        RowType.of(
                                new LogicalType[] {new BigIntType(), new VarCharType(10)},
                                new String[] {"id", "name"}),
                        Map.of());
        RowType wider =
                RowType.of(
                        new LogicalType[] {new BigIntType(), new VarCharType(200)},
                        new String[] {"id", "name"});
        DeltaSink sink = DeltaSink.forRowData(path, wider).build();
        assertThat(sink.rowType()).isEqualTo(wider);
    }

    @Test
    void aTablePropertyNeedsAKeyAndAValue() {
        assertThatThrownBy(
                        () -> DeltaSink.forRowData("/tmp/x", ROWS).tableProperty("", "v").build())
                .hasMessageContaining("needs a key and a value");
    }
}
