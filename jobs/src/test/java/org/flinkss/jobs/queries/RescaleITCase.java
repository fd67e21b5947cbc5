package org.flinkss.jobs.queries;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeITCase;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.course.testing.Expected;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.course.testing.Expected.MINUTE;

/**
 * A stateful query's checkpoint restores at another parallelism, from parallelism 1 too (issue 38
 * point 6: a checkpoint made at {@code --parallelism 1} was refused at any other one with Flink's
 * "Max parallelism mismatch", since the table committer, chained into the one task of a
 * parallelism-1 job, had recorded that task's max parallelism).
 */
public class RescaleITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path base;

    @Test
    void aWindowQueryRunsAtParallelismOneThenTwoThenOneWithExactTables() {
        Warehouse warehouse = new Warehouse(BronzeITCase.options(base, 1).warehouse());
        int[] parallelisms = {1, 2, 1};
        for (int batch = 1; batch <= parallelisms.length; batch++) {
            // Step N: one more batch of 500 events, bronze and win5 at this step's parallelism.
            RunOptions options = BronzeITCase.options(base, parallelisms[batch - 1]);
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
            QueryRunner.run(new BronzeQuery(options.events()), options);
            QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);

            // Every window closed so far, exactly once, with the state carried across the rescale.
            List<Event> landed = EventGenerator.events(0, batch * 500);
            long watermark = Expected.maxEventTime(landed) - 10 * MINUTE;
            assertThat(warehouse.sortedValues("events_5min"))
                    .as(
                            "events_5min after step %d (parallelism %d)",
                            batch, parallelisms[batch - 1])
                    .containsExactlyElementsOf(
                            Expected.windows(landed, 5 * MINUTE, 5 * MINUTE, false, watermark));
        }
        assertThat(warehouse.count("events_5min_late")).isZero();
    }
}
