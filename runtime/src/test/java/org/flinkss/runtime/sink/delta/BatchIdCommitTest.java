package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link BatchIdCommit} on a real local Delta table: the staged rows, their batch id null, are
 * committed with the batch's id; a commit tried again after one that wrote its file but did not
 * commit commits the same file once; a batch the table holds is skipped, unchanged.
 */
class BatchIdCommitTest {

    private static final String QUERY = "6f1c0a4e-query-bronze";

    private static final RowType REJECTED =
            RowType.of(
                    new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE, new BigIntType()},
                    new String[] {"event_id", "_rule", "_batch_id"});

    @TempDir java.nio.file.Path dir;

    private static RowData staged(long id) {
        return GenericRowData.of(id, StringData.fromString("known_type"), null);
    }

    @Test
    void stagedRowsAreCommittedWithTheBatchIdOnceWhateverTheTries() throws Exception {
        DeltaTable table = DeltaTable.forPath(dir.resolve("t").toString());
        table.create(REJECTED, Map.of());
        Path folder = new Path(table.path());
        DataFile file = DataFiles.write(folder, REJECTED, List.of(staged(1), staged(2)));
        BatchIdCommit commit = new BatchIdCommit(REJECTED);

        // Step 1: a try that wrote the stamped file and died before the log entry: the file is
        // there, the table does not hold it.
        String stampedName = file.name().replace(".parquet", "-batch7.parquet");
        Files.writeString(dir.resolve("t").resolve(stampedName), "half-written");

        // Step 2: the commit tried again writes the file anew and commits it with batch 7.
        CommitResult result = commit.commit(table, QUERY, 7, List.of(file.toBytes()));
        assertThat(result.committed()).isTrue();
        assertThat(table.snapshot().rows())
                .extracting(row -> row.getLong(0) + ":" + row.getLong(2))
                .containsExactlyInAnyOrder("1:7", "2:7");
        assertThat(table.snapshot().files()).extracting(f -> f.name()).containsExactly(stampedName);

        // Step 3: the same batch again (a replay): skipped, the table as it was.
        long version = table.version();
        CommitResult again = commit.commit(table, QUERY, 7, List.of(file.toBytes()));
        assertThat(again.committed()).isFalse();
        assertThat(table.version()).isEqualTo(version);
        assertThat(table.snapshot().rows()).hasSize(2);
    }
}
