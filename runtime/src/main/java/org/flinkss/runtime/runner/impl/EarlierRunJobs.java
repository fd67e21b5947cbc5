package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.RunFence;
import org.flinkss.runtime.checkpoint.RunRecords;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Makes sure that no job of an earlier run of the query still runs before a new run restores
 * anything: a client killed under {@code flink run} leaves its job running on the cluster, and that
 * job would go on committing beside the new run, or delete the checkpoint the new run restores
 * (Flink keeps only the newest ones).
 *
 * <p>Each run records its job and the cluster's REST address ({@code runs/<run>/job.json}). For
 * every recorded job of a cluster this asks the cluster ({@code GET /jobs/<id>}); a job that still
 * runs is cancelled ({@code PATCH /jobs/<id>?mode=cancel}) and waited for, saying so. Its retained
 * checkpoints stay, and the new run restores the newest. A cluster that cannot be reached is waited
 * for until the job's client timeout has passed since the killed client's last heartbeat: by then
 * the job has stopped itself ({@link RunFence}). A job of an embedded cluster ended with the
 * process that ran it.
 */
@Internal
public final class EarlierRunJobs {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CANCEL_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration POLL = Duration.ofMillis(250);

    /** Besides the client timeout: the job's own check runs every second. */
    private static final Duration MARGIN = Duration.ofSeconds(5);

    private final CheckpointLayout layout;
    private final String queryName;
    private final PrintStream out;

    public EarlierRunJobs(CheckpointLayout layout, String queryName, PrintStream out) {
        this.layout = layout;
        this.queryName = queryName;
        this.out = out;
    }

    /**
     * Returns once no recorded job of an earlier run can run anymore.
     *
     * @throws QueryException if a job still runs after it was cancelled
     */
    public void stop() {
        for (RunRecords.Job job : new RunRecords(layout).jobs()) {
            if (job.jobManager() != null) {
                stop(job);
            }
        }
    }

    private void stop(RunRecords.Job job) {
        URI jobUri = URI.create(job.jobManager().toString().replaceAll("/+$", "") + "/jobs/");
        URI uri = jobUri.resolve(job.jobId());
        String state;
        try {
            state = state(uri);
        } catch (IOException unreachable) {
            waitForItsClientTimeout(job, unreachable);
            return;
        }
        if (state == null || over(state)) {
            return; // unknown to the cluster (gone, or another cluster) or over
        }
        try {
            send(
                    HttpRequest.newBuilder(URI.create(uri + "?mode=cancel"))
                            .method("PATCH", noBody()));
            long deadline = System.nanoTime() + CANCEL_TIMEOUT.toNanos();
            while (true) {
                String now = state(uri);
                if (now == null || over(now)) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("still " + now + " after " + CANCEL_TIMEOUT);
                }
                JobStatuses.sleep(POLL);
            }
        } catch (IOException e) {
            throw new QueryException(
                    "query '"
                            + queryName
                            + "': job "
                            + job.jobId()
                            + " of an earlier run still runs on the cluster at "
                            + job.jobManager()
                            + " and could not be cancelled ("
                            + e.getMessage()
                            + "). Cancel it (scripts/flink cancel -m "
                            + job.jobManager().getAuthority()
                            + " "
                            + job.jobId()
                            + ") and run the query again.",
                    e);
        }
        out.println(
                queryName
                        + ": cancelled job "
                        + job.jobId()
                        + " of an earlier run whose client is gone (run "
                        + job.runId()
                        + ", started "
                        + job.started()
                        + "): it was still "
                        + state
                        + " on the cluster at "
                        + job.jobManager()
                        + ". This run continues from its last completed checkpoint.");
    }

    /**
     * The cluster that runs {@code job} cannot be asked: wait until the job has stopped itself, its
     * client timeout after the last heartbeat of its client.
     */
    private void waitForItsClientTimeout(RunRecords.Job job, IOException unreachable) {
        if (job.clientTimeout() == null) {
            return;
        }
        Path heartbeat = layout.heartbeat(job.runId());
        long lastBeat;
        try {
            lastBeat = heartbeat.getFileSystem().getFileStatus(heartbeat).getModificationTime();
        } catch (IOException e) {
            return; // the run never beat: its job never planned a batch
        }
        long until = lastBeat + job.clientTimeout().plus(MARGIN).toMillis();
        long wait = until - System.currentTimeMillis();
        if (wait <= 0) {
            return;
        }
        out.println(
                "note: "
                        + queryName
                        + ": cannot reach the cluster at "
                        + job.jobManager()
                        + " to check job "
                        + job.jobId()
                        + " of an earlier run whose client is gone ("
                        + unreachable.getMessage()
                        + "); waiting "
                        + (wait + 999) / 1000
                        + " s, after which such a job has stopped itself");
        JobStatuses.sleep(Duration.ofMillis(wait));
    }

    private static boolean over(String state) {
        try {
            return JobStatus.valueOf(state).isGloballyTerminalState();
        } catch (IllegalArgumentException unknown) {
            return false;
        }
    }

    /** The job's state, or null if the cluster does not know it. */
    @Nullable
    private static String state(URI job) throws IOException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(job).GET());
        if (response.statusCode() == 404) {
            return null;
        }
        if (response.statusCode() != 200) {
            throw new IOException("GET " + job + " answered " + response.statusCode());
        }
        JsonNode node = JsonFiles.JSON.readTree(response.body());
        String state = node.path("state").asText("");
        if (state.isEmpty()) {
            throw new IOException("GET " + job + " answered without a state: " + response.body());
        }
        return state;
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException {
        try {
            return HttpClient.newBuilder()
                    .connectTimeout(REQUEST_TIMEOUT)
                    .build()
                    .send(
                            request.timeout(REQUEST_TIMEOUT).build(),
                            HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static HttpRequest.BodyPublisher noBody() {
        return HttpRequest.BodyPublishers.noBody();
    }
}
