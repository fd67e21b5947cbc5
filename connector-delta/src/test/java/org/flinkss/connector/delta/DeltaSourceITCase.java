package org.flinkss.connector.delta;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.testutils.MiniClusters;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link DeltaSource} reads one version of a table, each row once, at parallelism 2. */
class DeltaSourceITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = MiniClusters.create();

    private static final RowType ROWS =
            RowType.of(
                    new LogicalType[] {new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH)},
                    new String[] {"id", "name"});

    @TempDir java.nio.file.Path dir;

    @Test
    void readsEveryRowOfTheVersionPinnedAtBuildOnceAndNothingCommittedLater() throws Exception {
        String path = table();
        append(path, 1, 1, 400);
        append(path, 2, 401, 1000);
        DeltaSource source = DeltaSource.forRowData(path).build();
        // Committed after the source was built: not read.
        append(path, 3, 1001, 1100);

        assertThat(source.version()).isEqualTo(2);
        assertThat(source.rowType()).isEqualTo(ROWS);
        assertThat(ids(source)).containsExactlyInAnyOrderElementsOf(range(1, 1000));
    }

    @Test
    void aTableCopiedThroughAFailureHasEachRowOnce() throws Exception {
        // Step 1: a table of 6 files, 3,000 rows.
        String from = table();
        for (int batch = 0; batch < 6; batch++) {
            append(from, batch + 1, batch * 500L + 1, batch * 500L + 500);
        }
        String to = dir.resolve("copy").toUri().toString();

        // Step 2: source to sink, on RocksDB, failing once mid-way after a checkpoint completed:
        // the source restores its splits' positions, the sink its committables.
        FailOnceMidway.reset();
        StreamExecutionEnvironment env = FailureEnvironments.rocksDbWithRestarts(150);
        DeltaSource source = DeltaSource.forRowData(from).build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "delta")
                .map(new FailOnceMidway(), InternalTypeInfo.of(ROWS))
                .sinkTo(DeltaSink.forRowData(to, ROWS).build());
        env.execute("delta to delta through a failure");

        // Step 3: it failed, and the copy has every row once.
        assertThat(FailOnceMidway.failures.get()).isEqualTo(1);
        assertThat(DeltaTable.forPath(to).snapshot().rows().stream().map(r -> r.getLong(0)))
                .containsExactlyInAnyOrderElementsOf(range(1, 3000));
    }

    @Test
    void anOlderVersionIsReadAsItWas() throws Exception {
        String path = table();
        append(path, 1, 1, 400);
        append(path, 2, 401, 1000);

        assertThat(ids(DeltaSource.forRowData(path).version(1).build()))
                .containsExactlyInAnyOrderElementsOf(range(1, 400));
    }

    @Test
    void aTableWithoutDataFilesReadsNoRows() throws Exception {
        assertThat(ids(DeltaSource.forRowData(table()).build())).isEmpty();
    }

    @Test
    void noTableOrNoSuchVersionIsRefusedWhenBuilt() {
        assertThatThrownBy(() -> DeltaSource.forRowData("").build())
                .hasMessageContaining("no table path");
        String missing = dir.resolve("missing").toUri().toString();
        assertThatThrownBy(() -> DeltaSource.forRowData(missing).build())
                .hasMessageContaining("missing");
        String path = table();
        assertThatThrownBy(() -> DeltaSource.forRowData(path).version(7).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("7");
    }

    private String table() {
        String path = dir.resolve("people").toUri().toString();
        DeltaTable.forPath(path).create(ROWS, Map.of());
        return path;
    }

    private static void append(String path, long batch, long from, long to) throws Exception {
        List<RowData> rows = new ArrayList<>();
        for (long id = from; id <= to; id++) {
            rows.add(GenericRowData.of(id, StringData.fromString("person-" + id)));
        }
        DeltaTable table = DeltaTable.forPath(path);
        table.append("test", batch, List.of(DataFiles.write(new Path(path), ROWS, rows)));
    }

    private static List<Long> ids(DeltaSource source) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        List<Long> ids = new ArrayList<>();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "delta")
                .executeAndCollect()
                .forEachRemaining(row -> ids.add(row.getLong(0)));
        return ids;
    }

    private static List<Long> range(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }
}
