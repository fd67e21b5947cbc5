package org.flinkss.progress;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.time.Watermarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Turns the fragments that a run's operators leave at each checkpoint into Spark's progress
 * objects, once the checkpoint has completed, and keeps them: {@code progress/log.jsonl} has one
 * line per committed batch, {@code progress/last.json} the last object printed (which, after a run
 * with nothing new, reports the next, unused batch id with 0 rows, as Spark's lastProgress does).
 */
public final class ProgressTracker {

    private final Path checkpointDir;
    private final String queryId;
    private final String queryName;
    private final String runId;
    private final List<ProgressListener> listeners;
    private final Map<String, Long> sinkRows = new LinkedHashMap<>();
    private final Map<String, ObjectNode> stateOperators = new LinkedHashMap<>();
    private final Map<String, String> sourceDescriptions;
    private final Map<String, String> sinkDescriptions;
    private long lastBatchId;
    private long previousTriggerStart = -1;
    private int batchesThisRun;

    public ProgressTracker(
            Path checkpointDir,
            String queryId,
            String queryName,
            String runId,
            Map<String, String> sinkDescriptions,
            List<ProgressListener> listeners) {
        this(checkpointDir, queryId, queryName, runId, Map.of(), sinkDescriptions, listeners);
    }

    /**
     * @param sourceDescriptions Spark's description of each source by its name, e.g. {@code
     *     KafkaV2[Subscribe[events]]}
     */
    public ProgressTracker(
            Path checkpointDir,
            String queryId,
            String queryName,
            String runId,
            Map<String, String> sourceDescriptions,
            Map<String, String> sinkDescriptions,
            List<ProgressListener> listeners) {
        this.sourceDescriptions = sourceDescriptions;
        this.checkpointDir = checkpointDir;
        this.queryId = queryId;
        this.queryName = queryName;
        this.runId = runId;
        this.sinkDescriptions = sinkDescriptions;
        this.listeners = listeners;
        this.lastBatchId = lastLoggedBatchId(checkpointDir);
    }

    public static Path logFile(Path checkpointDir) {
        return checkpointDir.resolve("progress").resolve("log.jsonl");
    }

    public static Path lastFile(Path checkpointDir) {
        return checkpointDir.resolve("progress").resolve("last.json");
    }

    /** Every committed batch's progress, oldest first. */
    public static List<ObjectNode> history(Path checkpointDir) {
        List<ObjectNode> all = new ArrayList<>();
        Path log = logFile(checkpointDir);
        if (!Files.exists(log)) {
            return all;
        }
        try {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    try {
                        all.add((ObjectNode) Fragments.JSON.readTree(line));
                    } catch (IOException torn) {
                        // A line cut by a kill while it was written: the batch is in the checkpoint
                        // anyway.
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log + ": " + e.getMessage(), e);
        }
        return all;
    }

    /** The last progress object printed for the query, or null if it never ran. */
    public static ObjectNode last(Path checkpointDir) {
        Path last = lastFile(checkpointDir);
        if (!Files.exists(last)) {
            return null;
        }
        try {
            return (ObjectNode) Fragments.JSON.readTree(last.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + last + ": " + e.getMessage(), e);
        }
    }

    private static long lastLoggedBatchId(Path checkpointDir) {
        long max = -1;
        for (ObjectNode p : history(checkpointDir)) {
            max = Math.max(max, p.path("batchId").asLong(-1));
        }
        return max;
    }

    public int batchesThisRun() {
        return batchesThisRun;
    }

    public long lastBatchId() {
        return lastBatchId;
    }

    /** Merges the fragments of checkpoints up to {@code completedCheckpointId} of a run. */
    public List<ObjectNode> commit(String run, long completedCheckpointId) {
        List<ObjectNode> emitted = new ArrayList<>();
        for (Path dir : fragmentDirs(run)) {
            long id = Long.parseLong(dir.getFileName().toString());
            if (id > completedCheckpointId) {
                break;
            }
            emitted.addAll(mergeDir(dir));
        }
        return emitted;
    }

    /**
     * Deletes the fragments of a run's checkpoints that never completed (a kill rolled them back).
     */
    public void discard(String run) {
        org.flinkss.query.CheckpointDir.deleteQuietly(RunFiles.fragments(checkpointDir, run));
    }

    /** Old runs that left fragments: a killed driver could not merge them. */
    public List<String> pendingRuns() {
        List<String> runs = new ArrayList<>();
        Path pending = checkpointDir.resolve("progress").resolve("pending");
        if (!Files.isDirectory(pending)) {
            return runs;
        }
        try (Stream<Path> s = Files.list(pending)) {
            s.filter(Files::isDirectory).forEach(p -> runs.add(p.getFileName().toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return runs;
    }

    private List<Path> fragmentDirs(String run) {
        Path root = RunFiles.fragments(checkpointDir, run);
        List<Path> dirs = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return dirs;
        }
        try (Stream<Path> s = Files.list(root)) {
            s.filter(p -> p.getFileName().toString().matches("\\d+")).forEach(dirs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        dirs.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return dirs;
    }

    private List<ObjectNode> mergeDir(Path dir) {
        List<JsonNode> sources = new ArrayList<>();
        boolean operatorsSnapshotted = false;
        Map<String, Integer> sinkFragments = new LinkedHashMap<>();
        Map<String, Integer> sinkSubtasks = new LinkedHashMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path f : (Iterable<Path>) s.sorted()::iterator) {
                String name = f.getFileName().toString();
                if (name.startsWith(".") || !name.endsWith(".json")) {
                    continue;
                }
                JsonNode node = Fragments.JSON.readTree(f.toFile());
                switch (node.path("kind").asText()) {
                    case "source":
                        sources.add(node);
                        break;
                    case "sink":
                        sinkRows.merge(
                                node.path("name").asText(), node.path("rows").asLong(), Long::sum);
                        sinkFragments.merge(node.path("name").asText(), 1, Integer::sum);
                        sinkSubtasks.put(
                                node.path("name").asText(), node.path("subtasks").asInt(0));
                        operatorsSnapshotted = true;
                        break;
                    case "state":
                        mergeState(node);
                        break;
                    case "dropped":
                        ObjectNode op = operator(node.path("name").asText());
                        op.put(
                                "numRowsDroppedByWatermark",
                                op.path("numRowsDroppedByWatermark").asLong()
                                        + node.path("rows").asLong());
                        break;
                    default:
                        break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read progress fragments in " + dir + ": " + e.getMessage(), e);
        }
        List<ObjectNode> emitted = new ArrayList<>();
        if (!operatorsSnapshotted || !everySinkSnapshotted(sinkFragments, sinkSubtasks)) {
            // A checkpoint aborted after the enumerator's snapshot and before (some of) the
            // operators' (a stop with savepoint cuts in): its batches are carried into the next
            // checkpoint, where the rest of their operators' counts are; the counts read here
            // stay in sinkRows until then.
            sources.clear();
        }
        for (JsonNode source : sources) {
            for (JsonNode batch : source.path("batches")) {
                long batchId = batch.path("batchId").asLong();
                if (batchId <= lastBatchId) {
                    continue; // carried again after a checkpoint that did not complete
                }
                ObjectNode progress = build(source.path("source").asText(), batch);
                record(progress);
                emitted.add(progress);
                lastBatchId = batchId;
                sinkRows.clear();
                stateOperators
                        .values()
                        .forEach(
                                op -> {
                                    op.put("numRowsUpdated", 0);
                                    op.put("numRowsDroppedByWatermark", 0);
                                });
            }
        }
        org.flinkss.query.CheckpointDir.deleteQuietly(dir);
        return emitted;
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
                    ObjectNode o = Fragments.JSON.createObjectNode();
                    o.put("operatorName", n);
                    o.put("numRowsTotal", 0);
                    o.put("numRowsUpdated", 0);
                    o.put("numRowsDroppedByWatermark", 0);
                    o.set("subtasks", Fragments.JSON.createObjectNode());
                    return o;
                });
    }

    private void mergeState(JsonNode node) {
        ObjectNode op = operator(node.path("name").asText());
        ObjectNode subtasks = (ObjectNode) op.get("subtasks");
        subtasks.put(node.path("subtask").asText(), node.path("numRowsTotal").asLong());
        long total = 0;
        for (JsonNode v : subtasks) {
            total += v.asLong();
        }
        op.put("numRowsTotal", total);
        op.put(
                "numRowsUpdated",
                op.path("numRowsUpdated").asLong() + node.path("numRowsUpdated").asLong());
        op.put(
                "numRowsDroppedByWatermark",
                op.path("numRowsDroppedByWatermark").asLong()
                        + node.path("numRowsDroppedByWatermark").asLong());
    }

    private ObjectNode build(String sourceName, JsonNode batch) {
        long now = System.currentTimeMillis();
        long rows = batch.path("numInputRows").asLong();
        long started = batch.path("startedAtMillis").asLong();
        long read = batch.path("readAtMillis").asLong();
        long total = Math.max(1, now - started);
        double inputSeconds =
                previousTriggerStart < 0
                        ? total / 1000.0
                        : Math.max(1, started - previousTriggerStart) / 1000.0;
        previousTriggerStart = started;

        ObjectNode p = Fragments.JSON.createObjectNode();
        p.put("id", queryId);
        p.put("runId", runId);
        p.put("name", queryName);
        p.put("timestamp", Watermarks.formatInstant(started));
        p.put("batchId", batch.path("batchId").asLong());
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
        long max = batch.path("maxEventTime").asLong();
        if (max != Long.MIN_VALUE
                && rows > 0
                && batch.path("minEventTime").asLong() != Long.MAX_VALUE) {
            eventTime.put(
                    "avg", Watermarks.formatInstant((long) batch.path("avgEventTime").asDouble()));
            eventTime.put("max", Watermarks.formatInstant(max));
            eventTime.put("min", Watermarks.formatInstant(batch.path("minEventTime").asLong()));
        }
        eventTime.put("watermark", Watermarks.format(batch.path("watermarkBefore").asLong()));

        ArrayNode ops = p.putArray("stateOperators");
        for (ObjectNode op : stateOperators.values()) {
            ObjectNode copy = op.deepCopy();
            copy.remove("subtasks");
            ops.add(copy);
        }

        ArrayNode sources = p.putArray("sources");
        ObjectNode src = sources.addObject();
        src.put("description", sourceDescriptions.getOrDefault(sourceName, sourceName));
        src.set("startOffset", batch.path("startOffset"));
        src.set("endOffset", batch.path("endOffset"));
        src.set("latestOffset", batch.path("endOffset"));
        src.put("numInputRows", rows);
        src.put("numBadRows", batch.path("numBadRows").asLong());
        JsonNode skipped = batch.path("skippedFiles");
        if (skipped.size() > 0) {
            // Files the batch planned but found gone, skipped with --skip-missing-files.
            src.put("numSkippedFiles", skipped.size());
            src.set("skippedFiles", skipped);
        }
        src.put("watermarkAfter", batch.path("watermarkAfter").asLong());
        src.put("inputRowsPerSecond", round(rows / inputSeconds));
        src.put("processedRowsPerSecond", round(rows / (total / 1000.0)));

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
        ObjectNode p = Fragments.JSON.createObjectNode();
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
        try {
            Path log = logFile(checkpointDir);
            Files.createDirectories(log.getParent());
            Files.writeString(
                    log,
                    Fragments.JSON.writeValueAsString(progress) + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot append to the progress log: " + e.getMessage(), e);
        }
        writeLast(progress);
        listeners.forEach(l -> l.onProgress(progress));
    }

    private void writeLast(ObjectNode progress) {
        Fragments.write(lastFile(checkpointDir), progress);
    }

    private static double round(double v) {
        return Double.isFinite(v) ? Math.round(v * 10.0) / 10.0 : 0.0;
    }
}
