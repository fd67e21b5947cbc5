package org.flinkss.jobs.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Map;

/**
 * One committed batch of a query, as the report shows it: read from the batch's progress object
 * (Spark's {@code lastProgress} fields). A measure the query does not have is {@code null}: the
 * watermark of a query without one, the state rows and the rows dropped by the watermark of a
 * stateless query, the quarantined lines of a query that parses no files.
 *
 * @param batchId Spark's {@code batchId}
 * @param time when the batch was committed ({@code timestamp}), if known
 * @param inputRows {@code numInputRows}
 * @param inputRowsPerSecond {@code inputRowsPerSecond}
 * @param processedRowsPerSecond {@code processedRowsPerSecond}
 * @param durationMs {@code durationMs.triggerExecution}
 * @param watermark the query's watermark after the batch, epoch milliseconds
 * @param stateRows the state rows of its stateful operators after the batch
 * @param droppedByWatermark rows its stateful operators dropped because of the watermark
 * @param lateRowsKept late rows the batch wrote to its {@code <table>_late} tables
 * @param quarantined lines the batch could not parse (the quarantine table's rows)
 */
public record Batch(
        long batchId,
        @Nullable Instant time,
        long inputRows,
        double inputRowsPerSecond,
        double processedRowsPerSecond,
        long durationMs,
        @Nullable Long watermark,
        @Nullable Long stateRows,
        @Nullable Long droppedByWatermark,
        @Nullable Long lateRowsKept,
        @Nullable Long quarantined) {

    /** The batch that the progress object {@code p} describes. */
    public static Batch fromProgress(ObjectNode p) {
        JsonNode ops = p.path("stateOperators");
        Long stateRows = null;
        Long dropped = null;
        for (JsonNode op : ops) {
            stateRows = (stateRows == null ? 0 : stateRows) + op.path("numRowsTotal").asLong();
            dropped =
                    (dropped == null ? 0 : dropped) + op.path("numRowsDroppedByWatermark").asLong();
        }
        Long quarantined = null;
        for (JsonNode source : p.path("sources")) {
            if (source.has("numBadRows")) {
                quarantined =
                        (quarantined == null ? 0 : quarantined)
                                + source.path("numBadRows").asLong();
            }
        }
        Long late = null;
        Iterator<Map.Entry<String, JsonNode>> others = p.path("sink").path("others").fields();
        while (others.hasNext()) {
            Map.Entry<String, JsonNode> other = others.next();
            if (other.getKey().endsWith("_late")) {
                late = (late == null ? 0 : late) + other.getValue().asLong();
            }
        }
        long watermark = p.path("sources").path(0).path("watermarkAfter").asLong(Watermarks.NONE);
        return new Batch(
                p.path("batchId").asLong(),
                instant(p.path("timestamp").asText(null)),
                p.path("numInputRows").asLong(),
                p.path("inputRowsPerSecond").asDouble(),
                p.path("processedRowsPerSecond").asDouble(),
                p.path("durationMs").path("triggerExecution").asLong(),
                // Before any batch moved it, Spark's watermark is the epoch: nothing to show yet.
                watermark <= Watermarks.INITIAL ? null : watermark,
                stateRows,
                dropped,
                late,
                quarantined);
    }

    @Nullable
    private static Instant instant(@Nullable String text) {
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
