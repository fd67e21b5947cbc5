package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.LatestQuery;
import org.flinkss.course.tables.EventTables;
import org.flinkss.course.testing.EventCopies;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.TestPauses;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.table.delta.HistoryEntry;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 34 point 1: {@code run latest} MERGEs each micro-batch into the Delta table {@code
 * events_latest}. Over bronze versions that all hold the same ids (version k: ids 0..299 of type
 * "v<k>"), two rounds of it give the rows the SQLite path gives on the same input, also when its
 * first run is killed right after a batch's MERGE commit, before the checkpoint that follows (the
 * process halts there, as kill -9 would end it), and run again.
 */
class LatestDeltaITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final int IDS = 300;
    private static final String TABLE = LatestQuery.TABLE;
    private static final int AMOUNT = EventTables.EVENT_ROW.getFieldIndex("amount");
    private static final int TYPE = EventTables.EVENT_ROW.getFieldIndex("event_type");

    @TempDir Path dir;

    private static RunOptions options(Path base) {
        // Parallelism 1 and one file a batch: bronze makes one version (one file) per landed
        // version, and latest reads one a batch, so the killed batch updates every id.
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(1)
                .maxFilesPerTrigger(1)
                .printProgress(false)
                .build();
    }

    /** Lands versions {@code from..to} (ids 0..IDS-1 of type "v<k>") and runs bronze over them. */
    private static void bronzeVersions(RunOptions options, int from, int to) {
        for (int v = from; v <= to; v++) {
            EventFiles.writeBatch(options.events(), v, EventCopies.of(0, IDS, "v" + v));
        }
        QueryRunner.run(new BronzeQuery(options.events()), options);
    }

    @Test
    void twoRoundsMergedIntoDeltaEqualTheSqlitePathAlsoAfterAKillBetweenCommitAndCheckpoint()
            throws Exception {
        // Step 1: versions 1-2 in bronze; run latest halts right after batch 1's MERGE commit
        // (version 2 over version 1: every id updated), before the checkpoint that follows.
        RunOptions delta = options(dir.resolve("delta"));
        bronzeVersions(delta, 1, 2);
        String[] args = {
            "run",
            "latest",
            "--base",
            delta.base().toString(),
            "--parallelism",
            "1",
            "--max-files-per-trigger",
            "1",
            "--quiet"
        };
        String halt = "-D" + TestPauses.HALT_PROPERTY + "=delta-commit:" + TABLE + ":1";
        assertThat(runChild(args, halt, "killed"))
                .as("exit code of the halted run")
                .isEqualTo(TestPauses.HALT_EXIT_CODE);
        Warehouse warehouse = new Warehouse(delta.warehouse());
        assertThat(rows(warehouse)).hasSize(IDS).allMatch(r -> "v2".equals(r.get(1)));

        // Step 2: version 3, and the second round, which first finds batch 1 committed.
        bronzeVersions(delta, 3, 3);
        QueryRunner.run(new LatestQuery(), delta);

        // Step 3: the SQLite path on the same input.
        RunOptions sql = options(dir.resolve("sqlite"));
        bronzeVersions(sql, 1, 3);
        QueryRunner.run(new LatestQuery(sql.database()), sql);
        List<List<Object>> expected = new ArrayList<>();
        for (List<Object> row : sql.database().rows(TABLE)) {
            expected.add(
                    List.of(((Number) row.get(0)).longValue(), row.get(TYPE), row.get(AMOUNT)));
        }
        assertThat(expected).hasSize(IDS).allMatch(r -> "v3".equals(r.get(1)));

        // Step 4: the Delta table equals the SQLite table; each batch is one MERGE commit.
        assertThat(rows(warehouse)).containsExactlyInAnyOrderElementsOf(expected);
        String queryId = QueryIdentity.idIn(delta.checkpointOf("latest"));
        List<Long> batches = new ArrayList<>();
        for (HistoryEntry e : warehouse.existing(TABLE).history(Integer.MAX_VALUE)) {
            if (queryId.equals(e.appId())) {
                assertThat(e.operation()).isEqualTo("MERGE");
                batches.add(e.batchId());
            }
        }
        assertThat(batches).as("batches committed, newest first").containsExactly(2L, 1L, 0L);
        assertThat(warehouse.existing(TABLE).snapshot().files())
                .as("every version rewrote the one file that held all ids")
                .hasSize(1);

        // Step 5: the SQL path on the Delta path's checkpoint is refused before any data moves,
        // naming the MERGE the checkpoint was made with and the way out; nothing changed.
        long version = warehouse.existing(TABLE).snapshot().version();
        assertThatThrownBy(() -> QueryRunner.run(new LatestQuery(delta.database()), delta))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("belongs to query 'latest'")
                .hasMessageContaining("MERGE INTO events_latest (Delta)")
                .hasMessageContaining("reset latest");
        assertThat(warehouse.existing(TABLE).snapshot().version()).isEqualTo(version);
        assertThat(rows(warehouse)).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** The Delta table's rows as (event_id, event_type, amount). */
    private static List<List<Object>> rows(Warehouse warehouse) {
        List<List<Object>> rows = new ArrayList<>();
        for (List<Object> row : warehouse.sortedValues(TABLE)) {
            rows.add(List.of(row.get(0), row.get(TYPE), row.get(AMOUNT)));
        }
        return rows;
    }

    private int runChild(String[] args, String property, String name) throws Exception {
        return HaltedRuns.run(dir, args, property, "latest", name);
    }
}
