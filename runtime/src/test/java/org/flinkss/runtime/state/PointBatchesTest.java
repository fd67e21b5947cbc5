package org.flinkss.runtime.state;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which batch a restore point holds, from the progress log's batch start times. */
class PointBatchesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ObjectNode batch(long id, String started) {
        return JSON.createObjectNode().put("batchId", id).put("timestamp", started);
    }

    private static long at(String time) {
        return Instant.parse(time).toEpochMilli();
    }

    @Test
    void aRestorePointHoldsTheNewestBatchThatStartedBeforeItCompleted() {
        // A run: the starting-watermark checkpoint before batch 0, a checkpoint after each batch
        // (the next batch starts only once it completed), and the savepoint that ends the run.
        Path first = new Path("file:/cp/checkpoints/job/chk-1");
        Path afterBatch0 = new Path("file:/cp/checkpoints/job/chk-2");
        Path afterBatch1 = new Path("file:/cp/checkpoints/job/chk-3");
        Path end = new Path("file:/cp/savepoints/savepoint-abc123-1");
        Map<Path, Long> completed =
                Map.of(
                        first, at("2025-12-05T10:00:00.100Z"),
                        afterBatch0, at("2025-12-05T10:00:01.500Z"),
                        afterBatch1, at("2025-12-05T10:00:02.900Z"),
                        end, at("2025-12-05T10:00:03.200Z"));
        List<ObjectNode> progress =
                List.of(batch(0, "2025-12-05T10:00:00.200Z"), batch(1, "2025-12-05T10:00:01.600Z"));

        List<StatePoint> points =
                PointBatches.of(
                        List.of(first, afterBatch0, afterBatch1, end),
                        completed::get,
                        progress,
                        Path::getPath);

        assertThat(points).extracting(StatePoint::batch).containsExactly(-1L, 0L, 1L, 1L);
        assertThat(points)
                .extracting(StatePoint::savepoint)
                .containsExactly(false, false, false, true);
        assertThat(points.get(3).describe())
                .isEqualTo("savepoint /cp/savepoints/savepoint-abc123-1 (batch 1)");
        assertThat(points.get(0).describe()).endsWith("(before the first batch)");
    }

    @Test
    void withoutProgressEveryPointIsBeforeTheFirstBatch() {
        Path point = new Path("file:/cp/savepoints/savepoint-abc123-1");
        assertThat(PointBatches.of(List.of(point), p -> 5L, List.of(), Path::getPath))
                .extracting(StatePoint::batch)
                .containsExactly(-1L);
    }
}
