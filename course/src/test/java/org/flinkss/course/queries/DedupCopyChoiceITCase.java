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
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 37, point 4: with two copies of an id in two files of one batch, dedup keeps the copy Spark
 * keeps. Spark's scan reads a batch's files largest first (a file a partition, read in partition
 * order), so the copy from the larger file, and within one file the first copy, whatever the age of
 * the files: the same in both APIs, at parallelism 1 and 2, run after run.
 */
class DedupCopyChoiceITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path dir;

    /**
     * One batch of three files: the oldest is small (ids 0..99, "small"), the next large (ids
     * 0..399, "large", then id 150 again, "large-again"), the newest mid-sized (ids 50..249,
     * "middle"). Each id's event time is the same in every copy, all within the watermark.
     */
    private static void land(RunOptions options) {
        EventFiles.writeBatch(options.events(), 1, EventCopies.of(0, 100, "small"));
        List<Event> large = new ArrayList<>(EventCopies.of(0, 400, "large"));
        large.addAll(EventCopies.of(150, 1, "large-again"));
        EventFiles.writeBatch(options.events(), 2, large);
        EventFiles.writeBatch(options.events(), 3, EventCopies.of(50, 200, "middle"));
    }

    /** Each id's kept payload, after bronze and dedup over the three files. */
    private Map<Long, String> kept(Api api, int parallelism, int run) {
        RunOptions options =
                BronzeITCase.options(
                        dir.resolve(api.text() + "-p" + parallelism + "-" + run), parallelism);
        land(options);
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.Result dedup = QueryRunner.run(DedupQuery.dedup(api), options);
        assertThat(dedup.numInputRows()).isEqualTo(701);
        Map<Long, String> kept = new TreeMap<>();
        for (List<Object> row : new Warehouse(options.warehouse()).sortedValues("events_dedup")) {
            assertThat(kept.put((Long) row.get(0), (String) row.get(2)))
                    .as("id %s kept once", row.get(0))
                    .isNull();
        }
        return kept;
    }

    @Test
    void theCopyFromTheLargestFileThenTheFirstInItsFileIsKeptInBothApisAtAnyParallelism() {
        Map<Long, String> expected = new TreeMap<>();
        for (long id = 0; id < 400; id++) {
            expected.put(id, "large");
        }
        for (Api api : Api.values()) {
            for (int parallelism : new int[] {1, 2}) {
                for (int run = 1; run <= (parallelism == 2 ? 2 : 1); run++) {
                    assertThat(kept(api, parallelism, run))
                            .as("%s at parallelism %d, run %d", api, parallelism, run)
                            .isEqualTo(expected);
                }
            }
        }
    }
}
