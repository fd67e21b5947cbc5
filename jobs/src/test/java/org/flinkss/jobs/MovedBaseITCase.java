package org.flinkss.jobs;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.table.Warehouse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 14, point 17: a base folder (events, warehouse and checkpoints) that was moved or copied is
 * refused with one line that says so and names the two ways out, instead of a confusing "belongs to
 * query" (or, worse, a run that writes into the old base's tables: Flink's file sink keeps their
 * absolute folders in the checkpoint). Moved back, it goes on where it stopped.
 */
class MovedBaseITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path dir;

    private static RunOptions options(Path base) {
        return RunOptions.builder().base(base).parallelism(1).printProgress(false).build();
    }

    private static QueryRunner.Result run(Path base) {
        RunOptions options = options(base);
        return QueryRunner.run(new BronzeQuery(options.events()), options);
    }

    @Test
    void aMovedBaseIsRefusedSayingSoAndGoesOnOnceMovedBack() throws Exception {
        Path before = dir.resolve("before");
        EventFiles.writeBatch(options(before).events(), 1, EventGenerator.events(0, 500));
        run(before);
        assertThat(Files.readString(options(before).checkpointOf(BronzeQuery.NAME).metadata()))
                .as("the identity's source folders are relative to the base")
                .contains("${base}/events");

        Path after = dir.resolve("elsewhere/after");
        Files.createDirectories(after.getParent());
        Files.move(before, after);
        EventFiles.writeBatch(options(after).events(), 2, EventGenerator.events(500, 500));
        assertThatThrownBy(() -> run(after))
                .isInstanceOf(QueryException.class)
                .hasMessageContaining("was made with its base folder at " + before)
                .hasMessageContaining("and the base is now " + after + " (moved or copied)")
                .hasMessageContaining("Move the base back to " + before)
                .hasMessageContaining("'reset bronze'")
                .hasMessageNotContaining("belongs to query");
        assertThat(before).as("nothing was written at the old place").doesNotExist();

        Files.move(after, before);
        QueryRunner.Result back = run(before);

        assertThat(back.numInputRows()).as("only the new file").isEqualTo(500);
        assertThat(back.lastProgress.path("batchId").asLong()).isEqualTo(1);
        List<Long> ids =
                new Warehouse(options(before).warehouse())
                        .sortedValues(BronzeQuery.TABLE).stream()
                                .map(row -> (Long) row.get(0))
                                .toList();
        assertThat(ids).containsExactlyElementsOf(LongStream.range(0, 1000).boxed().toList());
    }
}
