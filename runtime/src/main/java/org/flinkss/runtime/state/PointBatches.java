package org.flinkss.runtime.state;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.progress.ProgressLog;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Which batch each restore point holds, from the progress log: a batch starts only after the
 * checkpoint holding the batch before it has completed (and a run's savepoint follows its last
 * batch), so a restore point holds the newest batch that started before it completed.
 */
final class PointBatches {

    private PointBatches() {}

    /** Every restore point of the checkpoint {@code layout}, with its batch, oldest first. */
    static List<StatePoint> of(CheckpointLayout layout) {
        return of(
                new RestorePoints(layout).all(),
                RestorePoints::timeMillis,
                new ProgressLog(layout).all(),
                RestorePoints::shown);
    }

    /**
     * @param points restore points, oldest first
     * @param times each point's completion time, epoch ms
     * @param progress the progress log, oldest batch first
     */
    static List<StatePoint> of(
            List<Path> points,
            Function<Path, Long> times,
            List<ObjectNode> progress,
            Function<Path, String> shown) {
        List<long[]> starts = new ArrayList<>();
        for (ObjectNode batch : progress) {
            long start = startMillis(batch);
            if (start >= 0 && batch.has("batchId")) {
                starts.add(new long[] {start, batch.path("batchId").asLong()});
            }
        }
        List<StatePoint> found = new ArrayList<>();
        for (Path point : points) {
            long completed = times.apply(point);
            long batch = -1;
            for (long[] start : starts) {
                if (start[0] <= completed) {
                    batch = Math.max(batch, start[1]);
                }
            }
            // Flink names a retained checkpoint chk-N, a savepoint savepoint-...
            found.add(
                    new StatePoint(
                            batch, point, !point.getName().startsWith("chk-"), shown.apply(point)));
        }
        return found;
    }

    private static long startMillis(ObjectNode batch) {
        try {
            return Instant.parse(batch.path("timestamp").asText("")).toEpochMilli();
        } catch (DateTimeParseException e) {
            return -1;
        }
    }
}
