package org.flinkss.connector.delta;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
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

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sink's guarantee, as flink-connector-kafka's KafkaSinkITCase proves its own: a job on RocksDB
 * writes N rows through {@link DeltaSink}, fails once mid-stream after a checkpoint was committed,
 * restarts from that checkpoint (fixed-delay restart strategy) and ends with each row exactly once
 * in the table, every commit carrying the job's txn.
 */
class DeltaSinkExactlyOnceITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = MiniClusters.create();

    private static final int ROWS = 3_000;
    private static final int FAIL_AFTER = 1_200;

    private static final RowType ROW_TYPE =
            RowType.of(
                    new LogicalType[] {new BigIntType(false), new VarCharType(20)},
                    new String[] {"id", "name"});

    @TempDir Path dir;

    @BeforeEach
    void resetFailure() {
        FailOnceAfterACommit.reset();
    }

    @Test
    void aFailureMidStreamLeavesEachRowOnceAndEveryCommitCarriesTheJobsTxn() throws Exception {
        // Step 1: what the table must hold: ids 1..N, each once.
        List<Long> expected = LongStream.rangeClosed(1, ROWS).boxed().toList();
        String table = dir.resolve("people").toUri().toString();

        // Step 2: a job that fails once, after K rows and after a checkpoint reached the table.
        StreamExecutionEnvironment env = FailureEnvironments.rocksDbWithRestarts(200);
        env.fromSequence(1, ROWS)
                .map(new FailOnceAfterACommit(table))
                .map(DeltaSinkExactlyOnceITCase::row, InternalTypeInfo.of(ROW_TYPE))
                .sinkTo(DeltaSink.forRowData(table, ROW_TYPE).build());
        JobExecutionResult result = env.execute("delta sink exactly once");

        // Step 3: it failed as planned, with data committed before the failure.
        assertThat(FailOnceAfterACommit.failures.get()).isEqualTo(1);
        assertThat(FailOnceAfterACommit.versionAtFailure.get()).isGreaterThan(0);

        // Step 4: each row once, whatever the failed attempt had written or committed.
        DeltaTable delta = DeltaTable.forPath(table);
        List<Long> ids = delta.snapshot().rows().stream().map(r -> r.getLong(0)).toList();
        assertThat(ids).containsExactlyInAnyOrderElementsOf(expected);

        // Step 5: every data commit is one checkpoint of this job: txn(flink-<job id>, checkpoint
        // id), versions growing, none twice.
        List<HistoryEntry> commits =
                delta.history(1_000).stream()
                        .filter(h -> h.version() > 0)
                        .sorted(Comparator.comparingLong(HistoryEntry::version))
                        .toList();
        assertThat(commits).hasSizeGreaterThan(1);
        assertThat(commits)
                .allSatisfy(h -> assertThat(h.appId()).isEqualTo("flink-" + result.getJobID()));
        assertThat(commits.stream().mapToLong(HistoryEntry::batchId).toArray())
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(commits.stream().mapToLong(HistoryEntry::rowsAdded).sum()).isEqualTo(ROWS);

        // The failed attempt's last file was never committed: it is in the folder, in no version.
        try (Stream<Path> files = Files.list(dir.resolve("people"))) {
            long parquet = files.filter(p -> p.toString().endsWith(".parquet")).count();
            assertThat(parquet).isGreaterThan(delta.snapshot().files().size());
        }
    }

    @Test
    void aBoundedJobWithoutCheckpointingCommitsItsRowsOnceAtTheEnd() throws Exception {
        String table = dir.resolve("plain").toUri().toString();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.fromSequence(1, 500)
                .map(DeltaSinkExactlyOnceITCase::row, InternalTypeInfo.of(ROW_TYPE))
                .sinkTo(DeltaSink.forRowData(table, ROW_TYPE).build());
        env.execute("delta sink, no checkpoints");

        DeltaTable delta = DeltaTable.forPath(table);
        assertThat(delta.snapshot().rows().stream().map(r -> r.getLong(0)))
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.rangeClosed(1, 500).boxed().toList());
        assertThat(delta.version()).isEqualTo(1);
    }

    private static RowData row(long id) {
        return GenericRowData.of(id, StringData.fromString("person-" + id));
    }

    /**
     * Passes ids on, slowly enough for checkpoints to fall mid-stream; throws once, after {@link
     * #FAIL_AFTER} rows and once the table holds a commit, so the restart restores a checkpoint
     * whose files were committed and replays what came after.
     */
    private static final class FailOnceAfterACommit
            implements MapFunction<Long, Long>, CheckpointListener {

        static final AtomicInteger failures = new AtomicInteger();
        static final AtomicLong seen = new AtomicLong();
        static final AtomicLong versionAtFailure = new AtomicLong(-1);
        static volatile boolean checkpointCompleted;

        private final String table;

        FailOnceAfterACommit(String table) {
            this.table = table;
        }

        static void reset() {
            failures.set(0);
            seen.set(0);
            versionAtFailure.set(-1);
            checkpointCompleted = false;
        }

        @Override
        public Long map(Long id) throws Exception {
            Thread.sleep(1);
            if (seen.incrementAndGet() >= FAIL_AFTER
                    && checkpointCompleted
                    && failures.get() == 0) {
                DeltaTable delta = DeltaTable.forPath(table);
                long version = delta.exists() ? delta.version() : -1;
                if (version > 0 && failures.compareAndSet(0, 1)) {
                    versionAtFailure.set(version);
                    throw new IllegalStateException("injected failure after " + seen + " rows");
                }
            }
            return id;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointCompleted = true;
        }
    }
}
