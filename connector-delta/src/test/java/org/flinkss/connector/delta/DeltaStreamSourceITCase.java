package org.flinkss.connector.delta;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.table.delta.DataFiles;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.testutils.MiniClusters;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link DeltaStreamSource} follows a table version by version at parallelism 2: the snapshot's
 * rows, then each later commit's, each row once, through a failure too; a commit that removes data
 * fails the job naming its version.
 */
class DeltaStreamSourceITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = MiniClusters.create();

    private static final RowType ROWS =
            RowType.of(
                    new LogicalType[] {new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH)},
                    new String[] {"id", "name"});

    private static final Duration CHECK = Duration.ofMillis(100);

    @TempDir java.nio.file.Path dir;

    @Test
    void theSnapshotThenEachLaterCommitIsReadEachRowOnce() throws Exception {
        String path = table();
        append(path, 1, 1, 400);
        DeltaStreamSource source = DeltaSource.forRowData(path).buildStream(CHECK);
        assertThat(source.version()).isEqualTo(1);
        // Committed after the source was built, before the job started: read as the next version.
        append(path, 2, 401, 600);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        List<Long> ids = new ArrayList<>();
        try (CloseableIterator<Long> rows =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "delta stream")
                        .map(row -> row.getLong(0), Types.LONG)
                        .executeAndCollect()) {
            take(rows, 600, ids);
            // Step 2: commits made while the job runs are read as they come.
            append(path, 3, 601, 1000);
            take(rows, 400, ids);
            append(path, 4, 1001, 1100);
            take(rows, 100, ids);
        }

        assertThat(ids).containsExactlyInAnyOrderElementsOf(range(1, 1100));
    }

    @Test
    void aStreamCopiedThroughAFailureHasEachRowOnce() throws Exception {
        // Step 1: a table of 3 commits; 3 more are committed while the job runs.
        String from = table();
        for (int batch = 0; batch < 3; batch++) {
            append(from, batch + 1, batch * 500L + 1, batch * 500L + 500);
        }
        String to = dir.resolve("copy").toUri().toString();

        // Step 2: stream to sink, on RocksDB, failing once mid-way after a checkpoint completed:
        // the source restores its version, queued files and readers' positions, the sink its
        // committables.
        FailOnceMidway.reset();
        StreamExecutionEnvironment env = FailureEnvironments.rocksDbWithRestarts(150);
        env.fromSource(
                        DeltaSource.forRowData(from).buildStream(CHECK),
                        WatermarkStrategy.noWatermarks(),
                        "delta stream")
                .map(new FailOnceMidway(), InternalTypeInfo.of(ROWS))
                .sinkTo(DeltaSink.forRowData(to, ROWS).build());
        JobClient job = env.executeAsync("delta stream to delta through a failure");
        try {
            for (int batch = 3; batch < 6; batch++) {
                Thread.sleep(300);
                append(from, batch + 1, batch * 500L + 1, batch * 500L + 500);
            }
            // Step 3: the copy reaches 3,000 rows (the sink commits at checkpoints).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (copied(to) < 3000 && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            // One more checkpoint interval: a duplicate would be committed by now.
            Thread.sleep(600);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }

        // Step 4: it failed, and the copy has every row once.
        assertThat(FailOnceMidway.failures.get()).isEqualTo(1);
        assertThat(DeltaTable.forPath(to).snapshot().rows().stream().map(r -> r.getLong(0)))
                .containsExactlyInAnyOrderElementsOf(range(1, 3000));
    }

    @Test
    void aCommitThatRemovesDataFailsTheJobNamingItsVersion() throws Exception {
        String path = table();
        append(path, 1, 1, 100);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.fromSource(
                        DeltaSource.forRowData(path).buildStream(CHECK),
                        WatermarkStrategy.noWatermarks(),
                        "delta stream")
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("delta stream of a table overwritten");

        // An overwrite: version 2 removes version 1's file and adds another.
        Thread.sleep(500);
        DeltaTable.forPath(path)
                .overwrite("test", 2, List.of(DataFiles.write(new Path(path), ROWS, rows(1, 50))));

        assertThatThrownBy(() -> job.getJobExecutionResult().get(60, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("Delta stream source for '" + path + "'")
                                        .contains("version 2 removes 1 data file(s)"));
    }

    @Test
    void aCheckIntervalThatIsNotPositiveIsRefusedWhenBuilt() {
        String path = table();
        assertThatThrownBy(() -> DeltaSource.forRowData(path).buildStream(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("check interval must be positive");
    }

    private static void take(CloseableIterator<Long> rows, int n, List<Long> into) {
        for (int i = 0; i < n; i++) {
            assertThat(rows.hasNext()).as("row %d of %d", i + 1, n).isTrue();
            into.add(rows.next());
        }
    }

    private static long copied(String to) {
        try {
            return DeltaTable.forPath(to).snapshot().rows().size();
        } catch (RuntimeException e) {
            // Not created yet: the sink creates the table at its first commit.
            return 0;
        }
    }

    private String table() {
        String path = dir.resolve("people").toUri().toString();
        DeltaTable.forPath(path).create(ROWS, Map.of());
        return path;
    }

    private static List<RowData> rows(long from, long to) {
        List<RowData> rows = new ArrayList<>();
        for (long id = from; id <= to; id++) {
            rows.add(GenericRowData.of(id, StringData.fromString("person-" + id)));
        }
        return rows;
    }

    private static void append(String path, long batch, long from, long to) throws Exception {
        DeltaTable table = DeltaTable.forPath(path);
        table.append("test", batch, List.of(DataFiles.write(new Path(path), ROWS, rows(from, to))));
    }

    private static List<Long> range(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }
}
