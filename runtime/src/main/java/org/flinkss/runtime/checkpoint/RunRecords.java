package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.FileStatus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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

    /** The Flink job of a run, as {@code job.json} records it. */
    public record Job(
            String runId,
            String jobId,
            @Nullable URI jobManager,
            @Nullable Duration clientTimeout,
            String started) {}

    /**
     * @param jobManager the REST address of the cluster that runs the job, or null for a job that
     *     runs inside the client's process (an embedded cluster, which ends with it)
     * @param clientTimeout how long the job goes on without its client's heartbeat, or null
     */
    public void recordJob(
            String runId,
            String jobId,
            @Nullable URI jobManager,
            @Nullable Duration clientTimeout) {
        ObjectNode node = JsonFiles.JSON.createObjectNode();
        node.put("runId", runId);
        node.put("jobId", jobId);
        node.put("started", Instant.now().toString());
        if (jobManager != null) {
            node.put("jobManager", jobManager.toString());
        }
        if (clientTimeout != null) {
            node.put("clientTimeoutMillis", clientTimeout.toMillis());
        }
        JsonFiles.write(layout.jobFileLocation(runId), node);
    }

    /** The jobs of every run recorded and not cleared yet. */
    public List<Job> jobs() {
        List<Job> jobs = new ArrayList<>();
        List<String> runs = new ArrayList<>();
        try {
            for (FileStatus run : Storage.list(layout.runsLocation())) {
                if (run.isDir()) {
                    runs.add(run.getPath().getName());
                }
            }
        } catch (IOException e) {
            return jobs;
        }
        runs.sort(null);
        runs.forEach(run -> job(run).ifPresent(jobs::add));
        return jobs;
    }

    /** The Flink job of a run, if it was submitted. */
    public Optional<String> jobOf(String runId) {
        return job(runId).map(Job::jobId);
    }

    private Optional<Job> job(String runId) {
        try {
            JsonNode node = JsonFiles.readTree(layout.jobFileLocation(runId));
            String jobManager = node.path("jobManager").asText("");
            long timeout = node.path("clientTimeoutMillis").asLong(-1);
            return Optional.of(
                    new Job(
                            runId,
                            node.path("jobId").asText(),
                            jobManager.isEmpty() ? null : URI.create(jobManager),
                            timeout < 0 ? null : Duration.ofMillis(timeout),
                            node.path("started").asText("")));
        } catch (IOException | IllegalArgumentException e) {
            // no job.json (a run killed before it submitted), or not readable: no job known
            return Optional.empty();
        }
    }

    /** Whether every one of {@code sources} has read what run {@code runId} is to read. */
    public boolean caughtUp(String runId, List<String> sources) {
        for (String source : sources) {
            try {
                if (!Storage.exists(layout.caughtUpMarkerLocation(runId, source))) {
                    return false;
                }
            } catch (IOException e) {
                return false; // not reachable now: asked again at the next check
            }
        }
        return true;
    }

    /**
     * The newest batch for which a source of run {@code runId} wants a checkpoint at once ({@link
     * CheckpointLayout#checkpointWanted}), -1 if none.
     */
    public long checkpointWanted(String runId, List<String> sources) {
        long wanted = -1;
        for (String source : sources) {
            org.apache.flink.core.fs.Path marker = layout.checkpointWantedLocation(runId, source);
            try {
                wanted = Math.max(wanted, Long.parseLong(Storage.readText(marker).trim()));
            } catch (FileNotFoundException | NoSuchFileException e) {
                // no batch sealed yet
            } catch (IOException | NumberFormatException e) {
                // replaced at this moment, or unreadable: the periodic checkpoint comes anyway
            }
        }
        return wanted;
    }

    /** Forgets every run: done once a run's savepoint holds everything they committed. */
    public void clear() {
        Folders.deleteQuietly(layout.runsLocation());
    }
}
