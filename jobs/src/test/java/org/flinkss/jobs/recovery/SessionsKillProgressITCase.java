package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.runtime.TestPauses;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 38 point 7: a run of {@code sessions} killed right after a batch's Delta commit, before the
 * next checkpoint (the process halts itself there, as kill -9 would end it), then run again: the
 * progress log holds every batch the table committed, once, with the rows the commit added. The
 * reporter saw the last batch missing, or recorded with 0 rows, in 3 of about 25 kill tests.
 */
class SessionsKillProgressITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final String SESSIONS = QueryCatalog.SESSIONS.queryName();
    private static final String TABLE = QueryCatalog.SESSIONS.table();
    private static final int FILES = 6;
    private static final int EVENTS_PER_FILE = 500;

    @TempDir Path dir;

    @Test
    void aKillRightAfterABatchsDeltaCommitLeavesItInTheProgressLogOnce() throws Exception {
        killRightAfterTheDeltaCommitOfBatch(2);
    }

    /**
     * The last batch is committed by the savepoint that ends an availableNow run: a kill right
     * after that commit, before the driver merged the savepoint's fragments, lost it.
     */
    @Test
    void aKillRightAfterTheLastBatchsDeltaCommitLeavesItInTheProgressLog() throws Exception {
        killRightAfterTheDeltaCommitOfBatch(FILES - 1);
    }

    private void killRightAfterTheDeltaCommitOfBatch(long batch) throws Exception {
        // Step 1: bronze holds six versions, one per landed file: six batches for sessions.
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(dir.resolve("base").toFile()))
                        .parallelism(1)
                        .maxFilesPerTrigger(1)
                        .printProgress(false)
                        .build();
        BronzeInput.land(options, FILES, EVENTS_PER_FILE);
        QueryRunner.run(new BronzeQuery(options.events()), options);

        // Step 2: sessions halts right after the Delta commit of the batch.
        String[] args = {
            "run",
            SESSIONS,
            "--base",
            options.base().toString(),
            "--max-files-per-trigger",
            "1",
            "--parallelism",
            "1",
            "--quiet"
        };
        String halt = "delta-commit:" + TABLE + ":" + batch;
        int killed = runChild(args, "-D" + TestPauses.HALT_PROPERTY + "=" + halt, "killed");
        assertThat(killed).as("exit code of the halted run").isEqualTo(TestPauses.HALT_EXIT_CODE);

        // Step 3: the rerun finishes the query.
        assertThat(runChild(args, "-Dflinkss.unused=1", "rerun")).isZero();

        // Step 4: each committed batch has one progress entry with the rows its commit added.
        CheckpointLayout checkpoint = options.checkpointOf(SESSIONS);
        String queryId = QueryIdentity.idIn(checkpoint);
        Map<Long, Long> committed = new TreeMap<>();
        for (HistoryEntry e :
                new Warehouse(options.warehouse()).existing(TABLE).history(Integer.MAX_VALUE)) {
            if (queryId.equals(e.appId())) {
                committed.put(e.batchId(), e.rowsAdded());
            }
        }
        List<ObjectNode> history = ProgressTracker.history(checkpoint);
        List<Long> ids = history.stream().map(p -> p.path("batchId").asLong()).toList();
        Map<Long, Long> recorded =
                history.stream()
                        .collect(
                                Collectors.toMap(
                                        p -> p.path("batchId").asLong(),
                                        p -> p.path("sink").path("numOutputRows").asLong(),
                                        Long::sum,
                                        TreeMap::new));
        System.out.println("committed (batch -> rows): " + committed);
        System.out.println("recorded (batch -> rows): " + recorded);
        assertThat(ids).as("batch ids in the progress log").doesNotHaveDuplicates().isSorted();
        assertThat(committed).as("batches committed to %s", TABLE).containsKey(batch);
        committed.forEach(
                (b, rows) ->
                        assertThat(recorded)
                                .as("progress of committed batch %d", b)
                                .containsEntry(b, rows));
        long total = new Warehouse(options.warehouse()).sortedValues(TABLE).size();
        assertThat(recorded.values().stream().mapToLong(Long::longValue).sum())
                .as("rows the progress log says were written")
                .isEqualTo(total);
    }

    private int runChild(String[] args, String property, String name) throws Exception {
        return HaltedRuns.run(dir, args, property, "sessions", name);
    }
}
