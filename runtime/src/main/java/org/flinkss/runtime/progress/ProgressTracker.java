package org.flinkss.runtime.progress;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.LogFolder;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns the fragments that a run's operators leave at each checkpoint into Spark's progress
 * objects, once the checkpoint has completed, and keeps them: {@code progress/log.jsonl} has one
 * line per committed batch, {@code progress/last.json} the last object printed (which, after a run
 * with nothing new, reports the next, unused batch id with 0 rows, as Spark's lastProgress does).
 */
public final class ProgressTracker {

    private final CheckpointLayout layout;
    private final ProgressLog log;
    private final String queryId;
    private final String queryName;
    private final String runId;
    private final List<ProgressListener> listeners;
    private final Map<String, Long> sinkRows = new LinkedHashMap<>();
    private final Map<String, ObjectNode> stateOperators = new LinkedHashMap<>();

    /** The expectations' counts since the last batch recorded, by table and rule. */
    private final Map<String, ObjectNode> expectations = new LinkedHashMap<>();

    private final Map<String, String> sourceDescriptions;
    private final Map<String, String> sinkDescriptions;
    private long lastBatchId;
    private long previousTriggerStart = -1;
    private int batchesThisRun;

    /**
     * @param sourceDescriptions Spark's description of each source by its name, e.g. {@code
     *     KafkaV2[Subscribe[events]]}
     */
    public ProgressTracker(
            CheckpointLayout layout,
            String queryId,
            String queryName,
            String runId,
            Map<String, String> sourceDescriptions,
            Map<String, String> sinkDescriptions,
            List<ProgressListener> listeners) {
        this.sourceDescriptions = sourceDescriptions;
        this.layout = layout;
        this.queryId = queryId;
        this.queryName = queryName;
        this.runId = runId;
        this.sinkDescriptions = sinkDescriptions;
        this.listeners = listeners;
        this.log = new ProgressLog(layout);
        this.lastBatchId = log.lastBatchId();
    }

    /** Every committed batch's progress, oldest first ({@link ProgressLog#all}). */
    public static List<ObjectNode> history(CheckpointLayout layout) {
        return new ProgressLog(layout).all();
    }

    /** The last progress object printed for the query, or null if it never ran. */
    @Nullable
    public static ObjectNode last(CheckpointLayout layout) {
        return new ProgressLog(layout).last();
    }

    public int batchesThisRun() {
        return batchesThisRun;
    }

    public long lastBatchId() {
        return lastBatchId;
    }

    /** Tells the listeners what a source of the run is to read ({@link SourcePlan}). */
    public void plan(SourcePlan plan) {
        SourcePlan named = plan.forQuery(queryName);
        listeners.forEach(l -> l.onPlan(named));
    }

    /** Merges the fragments of checkpoints up to {@code completedCheckpointId} of a run. */
    public List<ObjectNode> commit(String run, long completedCheckpointId) {
        List<ObjectNode> emitted = new ArrayList<>();
        LogFolder<Long> checkpoints = Fragments.checkpoints(layout, run);
        long merged = Fragments.mergedUpTo(layout, run);
        for (long id : keys(checkpoints)) {
            if (id > completedCheckpointId) {
                break;
            }
            if (id > merged) {
                emitted.addAll(merge(Fragments.read(layout.fragments(run, id))));
                Fragments.markMerged(layout, run, id);
            }
            // At or below the mark: what a driver killed while it removed the folder left.
            checkpoints.remove(id);
        }
        return emitted;
    }

    /**
     * Deletes the fragments of a run's checkpoints that never completed (a kill rolled them back).
     */
    public void discard(String run) {
        Fragments.checkpoints(layout, run).purge();
    }

    /** Old runs that left fragments: a killed driver could not merge them. */
    public List<String> pendingRuns() {
        return keys(Fragments.runs(layout));
    }

    private static <K extends Comparable<K>> List<K> keys(LogFolder<K> folder) {
        try {
            return folder.keys();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<ObjectNode> merge(List<Fragment> fragments) {
        List<Fragment.SourceBatches> sources = new ArrayList<>();
        boolean operatorsSnapshotted = false;
        Map<String, Integer> sinkFragments = new LinkedHashMap<>();
        Map<String, Integer> sinkSubtasks = new LinkedHashMap<>();
        for (Fragment fragment : fragments) {
            if (fragment instanceof Fragment.SourceBatches batches) {
                sources.add(batches);
            } else if (fragment instanceof Fragment.SinkRows sink) {
                sinkRows.merge(sink.sink(), sink.rows(), Long::sum);
                sinkFragments.merge(sink.sink(), 1, Integer::sum);
                sinkSubtasks.put(sink.sink(), sink.subtasks());
                operatorsSnapshotted = true;
            } else if (fragment instanceof Fragment.StateRows state) {
                mergeState(state);
            } else if (fragment instanceof Fragment.DroppedRows dropped) {
                ObjectNode op = operator(dropped.operator());
                op.put(
                        "numRowsDroppedByWatermark",
                        op.path("numRowsDroppedByWatermark").asLong() + dropped.rows());
            } else if (fragment instanceof Fragment.ExpectationRows rows) {
                mergeExpectation(rows);
            }
        }
        List<ObjectNode> emitted = new ArrayList<>();
        if (!operatorsSnapshotted || !everySinkSnapshotted(sinkFragments, sinkSubtasks)) {
            // A checkpoint aborted after the enumerator's snapshot and before (some of) the
            // operators' (a stop with savepoint cuts in): its batches are carried into the next
            // checkpoint, where the rest of their operators' counts are; the counts read here
            // stay in sinkRows until then.
            sources.clear();
        }
        boolean replayedOnly = false;
        for (Fragment.SourceBatches source : sources) {
            for (BatchSummary batch : source.batches()) {
                long batchId = batch.batchId;
                if (batchId <= lastBatchId) {
                    // Carried again after a checkpoint that did not complete, or read again by a
                    // run restored from before its commit (which the sink then skipped).
                    replayedOnly = emitted.isEmpty();
                    continue;
                }
                replayedOnly = false;
                ObjectNode progress = build(source.source(), batch);
                record(progress);
                emitted.add(progress);
                lastBatchId = batchId;
                resetCounts();
            }
        }
        if (replayedOnly) {
            // The rows the sinks counted belong to a batch recorded already: they are not the
            // next batch's (a run killed right after a commit, then restored from before it).
            resetCounts();
        }
        return emitted;
    }

    /** The counts since the last batch recorded start again from zero. */
    private void resetCounts() {
        sinkRows.clear();
        expectations.clear();
        stateOperators
                .values()
                .forEach(
                        op -> {
                            op.put("numRowsUpdated", 0);
                            op.put("numRowsDroppedByWatermark", 0);
                        });
    }

    /**
     * Whether every sink of the query left all its subtasks' fragments in a checkpoint. Fragments
     * written before they said their number of subtasks count as whole, as they always did.
     */
    private boolean everySinkSnapshotted(
            Map<String, Integer> fragments, Map<String, Integer> subtasks) {
        for (String sink : sinkDescriptions.keySet()) {
            int expected = subtasks.getOrDefault(sink, -1);
            if (expected == -1 || (expected > 0 && fragments.get(sink) < expected)) {
                return false;
            }
        }
        return true;
    }

    private ObjectNode operator(String name) {
        return stateOperators.computeIfAbsent(
                name,
                n -> {
                    ObjectNode o = JsonFiles.JSON.createObjectNode();
                    o.put("operatorName", n);
                    o.put("numRowsTotal", 0);
                    o.put("numRowsUpdated", 0);
                    o.put("numRowsDroppedByWatermark", 0);
                    o.set("subtasks", JsonFiles.JSON.createObjectNode());
                    return o;
                });
    }

    private void mergeExpectation(Fragment.ExpectationRows rows) {
        ObjectNode rule =
                expectations.computeIfAbsent(
                        rows.table() + "." + rows.rule(),
                        k -> {
                            ObjectNode o = JsonFiles.JSON.createObjectNode();
                            o.put("table", rows.table());
                            o.put("rule", rows.rule());
                            o.put("action", rows.action());
                            o.put("passed", 0L);
                            o.put("failed", 0L);
                            return o;
                        });
        rule.put("passed", rule.path("passed").asLong() + rows.passed());
        rule.put("failed", rule.path("failed").asLong() + rows.failed());
    }

    private void mergeState(Fragment.StateRows state) {
        ObjectNode op = operator(state.operator());
        ObjectNode subtasks = (ObjectNode) op.get("subtasks");
        subtasks.put(String.valueOf(state.subtask()), state.numRowsTotal());
        long total = 0;
        for (JsonNode v : subtasks) {
            total += v.asLong();
        }
        op.put("numRowsTotal", total);
        op.put("numRowsUpdated", op.path("numRowsUpdated").asLong() + state.numRowsUpdated());
    }

    private ObjectNode build(String sourceName, BatchSummary batch) {
        long now = System.currentTimeMillis();
        long rows = batch.numInputRows;
        long started = batch.startedAtMillis;
        long read = batch.readAtMillis;
        long total = Math.max(1, now - started);
        double inputSeconds =
                previousTriggerStart < 0
                        ? total / 1000.0
                        : Math.max(1, started - previousTriggerStart) / 1000.0;
        previousTriggerStart = started;

        ObjectNode p = JsonFiles.JSON.createObjectNode();
        p.put("id", queryId);
        p.put("runId", runId);
        p.put("name", queryName);
        p.put("timestamp", Watermarks.formatInstant(started));
        p.put("batchId", batch.batchId);
        p.put("batchDuration", total);
        p.put("numInputRows", rows);
        p.put("inputRowsPerSecond", round(rows / inputSeconds));
        p.put("processedRowsPerSecond", round(rows / (total / 1000.0)));
        ObjectNode duration = p.putObject("durationMs");
        duration.put("addBatch", Math.max(0, read - started));
        duration.put("commitOffsets", Math.max(0, now - read));
        duration.put("latestOffset", 0);
        duration.put("triggerExecution", total);

        ObjectNode eventTime = p.putObject("eventTime");
        long max = batch.maxEventTime;
        if (max != Long.MIN_VALUE && rows > 0 && batch.minEventTime != Long.MAX_VALUE) {
            eventTime.put("avg", Watermarks.formatInstant((long) batch.avgEventTime));
            eventTime.put("max", Watermarks.formatInstant(max));
            eventTime.put("min", Watermarks.formatInstant(batch.minEventTime));
        }
        eventTime.put("watermark", Watermarks.format(batch.watermarkBefore));

        ArrayNode ops = p.putArray("stateOperators");
        for (ObjectNode op : stateOperators.values()) {
            ObjectNode copy = op.deepCopy();
            copy.remove("subtasks");
            ops.add(copy);
        }

        ArrayNode sources = p.putArray("sources");
        ObjectNode src = sources.addObject();
        src.put("description", sourceDescriptions.getOrDefault(sourceName, sourceName));
        src.set("startOffset", JsonFiles.JSON.valueToTree(batch.startOffset));
        src.set("endOffset", JsonFiles.JSON.valueToTree(batch.endOffset));
        src.set("latestOffset", JsonFiles.JSON.valueToTree(batch.endOffset));
        src.put("numInputRows", rows);
        src.put("numBadRows", batch.numBadRows);
        if (!batch.skippedFiles.isEmpty()) {
            // Files the batch planned but found gone, skipped with --skip-missing-files.
            src.put("numSkippedFiles", batch.skippedFiles.size());
            src.set("skippedFiles", JsonFiles.JSON.valueToTree(batch.skippedFiles));
        }
        src.put("watermarkAfter", batch.watermarkAfter);
        src.put("inputRowsPerSecond", round(rows / inputSeconds));
        src.put("processedRowsPerSecond", round(rows / (total / 1000.0)));

        if (!expectations.isEmpty()) {
            // Only a query run with expectations has the field, as DLT's data_quality.
            ArrayNode rules = p.putArray("expectations");
            expectations.values().forEach(rule -> rules.add(rule.deepCopy()));
        }

        ObjectNode sink = p.putObject("sink");
        String main = sinkDescriptions.isEmpty() ? "" : sinkDescriptions.keySet().iterator().next();
        sink.put("description", sinkDescriptions.getOrDefault(main, main));
        sink.put("numOutputRows", sinkRows.getOrDefault(main, 0L));
        if (sinkDescriptions.size() > 1) {
            ObjectNode others = sink.putObject("others");
            sinkDescriptions.forEach(
                    (name, description) -> {
                        if (!name.equals(main)) {
                            others.put(name, sinkRows.getOrDefault(name, 0L));
                        }
                    });
        }
        return p;
    }

    /**
     * Spark's lastProgress after a run that found nothing new: the next, unused batch id, 0 rows.
     */
    public ObjectNode noDataProgress(long watermark) {
        long now = System.currentTimeMillis();
        ObjectNode p = JsonFiles.JSON.createObjectNode();
        p.put("id", queryId);
        p.put("runId", runId);
        p.put("name", queryName);
        p.put("timestamp", Watermarks.formatInstant(now));
        p.put("batchId", lastBatchId + 1);
        p.put("batchDuration", 0);
        p.put("numInputRows", 0);
        p.put("inputRowsPerSecond", 0.0);
        p.put("processedRowsPerSecond", 0.0);
        p.putObject("durationMs").put("latestOffset", 0).put("triggerExecution", 0);
        p.putObject("eventTime").put("watermark", Watermarks.format(watermark));
        ArrayNode ops = p.putArray("stateOperators");
        stateOperators
                .values()
                .forEach(
                        op -> {
                            ObjectNode copy = op.deepCopy();
                            copy.remove("subtasks");
                            ops.add(copy);
                        });
        p.putArray("sources");
        ObjectNode sink = p.putObject("sink");
        String main = sinkDescriptions.isEmpty() ? "" : sinkDescriptions.keySet().iterator().next();
        sink.put("description", sinkDescriptions.getOrDefault(main, main));
        sink.put("numOutputRows", 0);
        writeLast(p);
        listeners.forEach(l -> l.onProgress(p));
        return p;
    }

    private void record(ObjectNode progress) {
        batchesThisRun++;
        log.add(progress);
        writeLast(progress);
        listeners.forEach(l -> l.onProgress(progress));
    }

    private void writeLast(ObjectNode progress) {
        log.writeLast(progress);
    }

    private static double round(double v) {
        return Double.isFinite(v) ? Math.round(v * 10.0) / 10.0 : 0.0;
    }
}
