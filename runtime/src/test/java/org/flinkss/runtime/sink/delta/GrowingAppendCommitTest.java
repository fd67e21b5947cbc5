package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A batch's grown files committed on a real local table: the columns they add, or a refusal. */
class GrowingAppendCommitTest {

    private static final RowType BASE =
            RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"event_id"});

    @TempDir java.nio.file.Path dir;

    private byte[] file(DeltaTable table, String column, LogicalType type, Object value)
            throws Exception {
        RowType.RowField added = new RowType.RowField(column, type);
        RowType columns = new RowType(List.of(BASE.getFields().get(0), added));
        DataFile file =
                DataFiles.write(
                        new Path(table.path()), columns, List.of(GenericRowData.of(1L, value)));
        return new GrownFile(file, List.of(added)).toBytes();
    }

    @Test
    void theColumnsOfABatchsFilesAreAddedInItsCommitAndAConflictCommitsNothing() throws Exception {
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
        table.create(BASE, Map.of());
        GrowingAppendCommit commit = new GrowingAppendCommit("t");

        commit.commit(
                table,
                "q",
                0,
                List.of(
                        file(table, "channel", VarCharType.STRING_TYPE, StringData.fromString("w")),
                        file(table, "score", new BigIntType(), 3L)));

        // After the table's columns, in the order the files are committed in (by name).
        assertThat(table.rowType().getFieldNames())
                .hasSize(3)
                .startsWith("event_id")
                .contains("channel", "score");
        assertThat(table.snapshot().count()).isEqualTo(2);

        // Two files that bring one column with two types: the batch is refused, nothing changes.
        long version = table.version();
        assertThatThrownBy(
                        () ->
                                commit.commit(
                                        table,
                                        "q",
                                        1,
                                        List.of(
                                                file(
                                                        table,
                                                        "score",
                                                        VarCharType.STRING_TYPE,
                                                        null))))
                .isInstanceOf(PermanentFailure.class)
                .hasMessageContaining(
                        "column 'score' is BIGINT in table 't' but STRING in data file");
        assertThat(table.version()).isEqualTo(version);
        // A plain data file (staged by a run without schema evolution) adds no column.
        DataFile plain =
                DataFiles.write(new Path(table.path()), BASE, List.of(GenericRowData.of(2L)));
        assertThat(commit.commit(table, "q", 1, List.of(plain.toBytes())).committed()).isTrue();
        assertThat(table.snapshot().count()).isEqualTo(3);
    }
}
