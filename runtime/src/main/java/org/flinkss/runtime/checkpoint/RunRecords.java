package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the checkpoint directory keeps about runs in progress ({@code runs/<run>/}): the Flink job
 * of each run, so that a later run can recover the progress of a killed one ({@link #jobs}, a log
 * keyed by run id whose entries are {@code runs/<run>/job.json}), and the markers its sources leave
 * once they have read what the run is to read.
 */
public final class RunRecords {

    private final CheckpointLayout layout;
    private final CheckpointLog<String, Job> jobs;

    public RunRecords(CheckpointLayout layout) {
        this.layout = layout;
        this.jobs = new CheckpointLog<>(layout.runs(), CheckpointLayout.RUN_JOBS, new JobCodec());
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
        Job job = new Job(runId, jobId, jobManager, clientTimeout, Instant.now().toString());
        try {
            jobs.add(runId, job);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write " + jobs.location(runId) + ": " + e.getMessage(), e);
        }
    }

    /** The jobs of every run recorded and not cleared yet. */
    public List<Job> jobs() {
        List<Job> all = new ArrayList<>();
        List<String> runs;
        try {
            runs = jobs.keys();
        } catch (IOException e) {
            return all;
        }
        runs.forEach(run -> job(run).ifPresent(all::add));
        return all;
    }

    /** The Flink job of a run, if it was submitted. */
    public Optional<String> jobOf(String runId) {
        return job(runId).map(Job::jobId);
    }

    private Optional<Job> job(String runId) {
        try {
            return jobs.get(runId);
        } catch (IOException | IllegalArgumentException e) {
            // not readable: no job known (a run killed before it submitted has no job.json)
            return Optional.empty();
        }
    }

    /** {@code job.json}: the job's fields, its client timeout in milliseconds. */
    private static final class JobCodec implements LogCodec<Job> {
        @Override
        public byte[] encode(Job job) throws IOException {
            ObjectNode node = JsonFiles.JSON.createObjectNode();
            node.put("runId", job.runId());
            node.put("jobId", job.jobId());
            node.put("started", job.started());
            if (job.jobManager() != null) {
                node.put("jobManager", job.jobManager().toString());
            }
            if (job.clientTimeout() != null) {
                node.put("clientTimeoutMillis", job.clientTimeout().toMillis());
            }
            return JsonFiles.JSON.writeValueAsBytes(node);
        }

        @Override
        public Job decode(byte[] bytes) throws IOException {
            JsonNode node = JsonFiles.JSON.readTree(bytes);
            String jobManager = node.path("jobManager").asText("");
            long timeout = node.path("clientTimeoutMillis").asLong(-1);
            return new Job(
                    node.path("runId").asText(),
                    node.path("jobId").asText(),
                    jobManager.isEmpty() ? null : URI.create(jobManager),
                    timeout < 0 ? null : Duration.ofMillis(timeout),
                    node.path("started").asText(""));
        }
    }

    /** Whether every one of {@code sources} has read what run {@code runId} is to read. */
    public boolean caughtUp(String runId, List<String> sources) {
        for (String source : sources) {
            try {
                if (!Storage.exists(layout.caughtUpMarker(runId, source))) {
                    return false;
                }
            } catch (IOException e) {
                return false; // not reachable now: asked again at the next check
            }
        }
        return true;
    }

    /**
     * {@link #checkpointWanted} when no source wants one: -1 is a batch here, the one before a
     * query's first, whose checkpoint holds the readers' starting watermark.
     */
    public static final long NO_CHECKPOINT_WANTED = Long.MIN_VALUE;

    /**
     * The newest batch for which a source of run {@code runId} wants a checkpoint at once ({@link
     * CheckpointLayout#checkpointWanted}), {@link #NO_CHECKPOINT_WANTED} if none.
     */
    public long checkpointWanted(String runId, List<String> sources) {
        long wanted = NO_CHECKPOINT_WANTED;
        for (String source : sources) {
            Path marker = layout.checkpointWanted(runId, source);
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
        jobs.purge();
    }
}
