package org.flinkss.course.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.testing.EventCopies;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.sink.jdbc.Database;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 38, point 2: when one {@code latest} batch holds several rows with one event_id from
 * several bronze versions, the last by bronze's order (version, then the files of each as its log
 * adds them, then their rows) wins the upsert, as a later batch would have written it: run after
 * run, at any parallelism (the older row won 1000/0, 876/124 and 513/487 times in three identical
 * runs before).
 */
class LatestOrderITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path dir;

    /**
     * Bronze version 1: ids 0..999 "old" (a large file) and ids 0..99 "old-small" (a small one);
     * version 2: ids 0..999 "new", then ids 0..9 again, "newest", later in the same file; then one
     * {@code latest} run over both versions. Returns each id's payload in the SQL table.
     */
    private Map<Long, String> upserted(int parallelism, int run) throws Exception {
        RunOptions options =
                BronzeITCase.options(dir.resolve("p" + parallelism + "-" + run), parallelism);
        Database db = options.database();
        EventFiles.writeBatch(options.events(), 1, EventCopies.of(0, 1000, "old"));
        EventFiles.writeBatch(options.events(), 2, EventCopies.of(0, 100, "old-small"));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        List<Event> second = new ArrayList<>(EventCopies.of(0, 1000, "new"));
        second.addAll(EventCopies.of(0, 10, "newest"));
        EventFiles.writeBatch(options.events(), 3, second);
        QueryRunner.run(new BronzeQuery(options.events()), options);

        QueryRunner.Result latest = QueryRunner.run(new LatestQuery(db), options);
        assertThat(latest.numInputRows()).isEqualTo(2110);
        Map<Long, String> payloads = new TreeMap<>();
        for (List<Object> row : db.rows(LatestQuery.TABLE)) {
            assertThat(payloads.put(((Number) row.get(0)).longValue(), (String) row.get(2)))
                    .as("one row per event_id")
                    .isNull();
        }
        return payloads;
    }

    @Test
    void theLastRowByVersionThenFileThenLineWinsRunAfterRun() throws Exception {
        Map<Long, String> expected = new TreeMap<>();
        for (long id = 0; id < 1000; id++) {
            expected.put(id, id < 10 ? "newest" : "new");
        }
        for (int parallelism : new int[] {2, 1}) {
            for (int run = 1; run <= (parallelism == 2 ? 3 : 1); run++) {
                assertThat(upserted(parallelism, run))
                        .as("parallelism %d, run %d", parallelism, run)
                        .isEqualTo(expected);
            }
        }
    }
}
