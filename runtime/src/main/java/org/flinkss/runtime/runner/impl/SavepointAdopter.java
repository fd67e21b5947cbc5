package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;

import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * Makes the savepoint of a job stopped from outside ({@code flink stop [--savepointPath DIR]}) the
 * query's. That savepoint is wherever the command said, and Flink deleted the job's checkpoints
 * when it finished: the checkpoint directory would restore an older state and process committed
 * batches again. So the savepoint, found through the JobManager's REST API, is copied into the
 * directory's {@code savepoints/} ({@link RestorePoints#adopt}).
 */
@Internal
public final class SavepointAdopter {

    private final JobManagerRest jobManager;
    private final RestorePoints restorePoints;
    private final String queryName;
    private final PrintStream out;

    public SavepointAdopter(
            JobManagerRest jobManager,
            RestorePoints restorePoints,
            String queryName,
            PrintStream out) {
        this.jobManager = jobManager;
        this.restorePoints = restorePoints;
        this.queryName = queryName;
        this.out = out;
    }

    /** The adopted copy, or null (with a warning saying what to do) if it cannot be found. */
    @Nullable
    public Path adopt() {
        String jobId = jobManager.jobId();
        String where = null;
        try {
            Optional<JsonNode> checkpoints = jobManager.get("/jobs/" + jobId + "/checkpoints");
            JsonNode savepoint =
                    checkpoints
                            .map(c -> c.path("latest").path("savepoint"))
                            .orElse(MissingNode.getInstance());
            if ("COMPLETED".equals(savepoint.path("status").asText())) {
                where = savepoint.path("external_path").asText(null);
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            out.println(
                    "warning: could not ask the JobManager for the savepoint of job "
                            + jobId
                            + ": "
                            + e);
        }
        Path path = where == null ? null : RestorePolicy.location(where);
        Path adopted = null;
        String problem = where == null ? " is unknown" : " " + where + " cannot be read";
        if (path != null && exists(new Path(path, "_metadata"))) {
            try {
                adopted = restorePoints.adopt(path);
            } catch (UncheckedIOException e) {
                problem = " " + where + " cannot be taken: " + e.getCause().getMessage();
            }
        }
        if (adopted == null) {
            out.println(
                    "warning: query '"
                            + queryName
                            + "' (job "
                            + jobId
                            + ") was stopped from outside and its savepoint"
                            + problem
                            + ". Pass it to the next run with"
                            + " flink run -s <savepoint>; without it the run restores "
                            + restorePoints.newest().map(RestorePoints::shown).orElse("nothing")
                            + " and may process committed batches again.");
            return null;
        }
        out.println(
                queryName
                        + ": stopped from outside with savepoint "
                        + RestorePoints.shown(path)
                        + "; copied to "
                        + RestorePoints.shown(adopted)
                        + ", the next run continues from it");
        return adopted;
    }

    private static boolean exists(Path file) {
        try {
            return Storage.exists(file);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
