package org.flinkss.runtime.checkpoint;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What the checkpoint directory keeps about runs in progress ({@code runs/<run>/}): the Flink job
 * of each run, so that a later run can recover the progress of a killed one, and the markers its
 * sources leave once they have read what the run is to read.
 */
public final class RunRecords {

    private final CheckpointLayout layout;

    public RunRecords(CheckpointLayout layout) {
        this.layout = layout;
    }

    public void recordJob(String runId, String jobId) {
        ObjectNode node = JsonFiles.JSON.createObjectNode();
        node.put("runId", runId);
        node.put("jobId", jobId);
        node.put("started", Instant.now().toString());
        JsonFiles.write(layout.jobFile(runId), node);
    }

    /** The Flink job of a run, if it was submitted. */
    public Optional<String> jobOf(String runId) {
        Path f = layout.jobFile(runId);
        if (!Files.exists(f)) {
            return Optional.empty();
        }
        try {
            return Optional.of(JsonFiles.JSON.readTree(f.toFile()).path("jobId").asText());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Whether every one of {@code sources} has read what run {@code runId} is to read. */
    public boolean caughtUp(String runId, List<String> sources) {
        for (String source : sources) {
            if (!Files.exists(layout.caughtUpMarker(runId, source))) {
                return false;
            }
        }
        return true;
    }

    /** Forgets every run: done once a run's savepoint holds everything they committed. */
    public void clear() {
        Folders.deleteQuietly(layout.runs());
    }
}
