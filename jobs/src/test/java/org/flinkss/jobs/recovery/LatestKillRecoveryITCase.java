package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.LatestQuery;
import org.flinkss.course.testing.EventCopies;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 38, point 2, after kills: {@code latest} over bronze versions that all hold the same ids
 * (version k: ids 0..999 with payload "v<k>") ends with the newest version's row for every id when
 * its runs are killed at seeded moments, as two uninterrupted runs do.
 */
class LatestKillRecoveryITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final long SEED = Long.getLong("flinkss.chaosSeed", 3802L);
    private static final int KILLS = 3;
    private static final int VERSIONS = 6;

    @TempDir Path dir;

    private static RunOptions options(Path base) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .checkpointInterval(Duration.ofMillis(300))
                .printProgress(false)
                .build();
    }

    /** Bronze with {@link #VERSIONS} versions, each ids 0..999 again with its own payload. */
    private static RunOptions bronze(Path base) {
        RunOptions options = options(base);
        for (int v = 1; v <= VERSIONS; v++) {
            EventFiles.writeBatch(options.events(), v, EventCopies.of(0, 1000, "v" + v));
            QueryRunner.run(new BronzeQuery(options.events()), options);
        }
        return options;
    }

    private static List<List<Object>> uninterrupted(Path base) throws Exception {
        RunOptions options = bronze(base);
        QueryRunner.run(new LatestQuery(options.database()), options);
        return options.database().rows(LatestQuery.TABLE);
    }

    @Test
    void killedAtRandomMomentsLatestKeepsTheNewestRowOfEveryIdAsUninterruptedRuns()
            throws Exception {
        // Step 1: two uninterrupted runs: every id holds the newest version's row.
        List<List<Object>> reference = uninterrupted(dir.resolve("reference-1"));
        assertThat(reference).hasSize(1000).allMatch(r -> ("v" + VERSIONS).equals(r.get(2)));
        assertThat(uninterrupted(dir.resolve("reference-2"))).isEqualTo(reference);

        // Step 2: the same bronze, latest in a child JVM killed at seeded moments, then run until
        // it finishes.
        RunOptions killed = bronze(dir.resolve("killed"));
        String[] args = {
            "run",
            "latest",
            "--base",
            killed.base().toString(),
            "--parallelism",
            "2",
            "--checkpoint-interval",
            "300ms",
            "--quiet",
            // The SQL path, as the uninterrupted runs above (without it latest MERGEs into Delta).
            "--jdbc-url",
            killed.database().describe()
        };
        // From JVM start-up to the savepoint: a run takes 4 to 10 s here.
        SeededKills.Result result =
                SeededKills.run(
                        dir, "latest", args, KILLS, SEED, 700, 4000, Duration.ofSeconds(180));
        assertThat(result.kills())
                .as("runs killed before they ended")
                .isGreaterThanOrEqualTo(KILLS - 1);

        // Step 3: the table equals the uninterrupted runs'.
        assertThat(killed.database().rows(LatestQuery.TABLE)).isEqualTo(reference);
    }
}
