package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;

import org.flinkss.runtime.checkpoint.RestorePoints;

import javax.annotation.Nullable;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
        Path path = where == null ? null : RestorePolicy.localPath(where);
        if (path == null || !Files.exists(path.resolve("_metadata"))) {
            out.println(
                    "warning: query '"
                            + queryName
                            + "' (job "
                            + jobId
                            + ") was stopped from outside and its savepoint"
                            + (where == null
                                    ? " is unknown"
                                    : " " + where + " is not a local folder")
                            + ". Pass it to the next run with"
                            + " flink run -s <savepoint>; without it the run restores "
                            + restorePoints.newest().map(Path::toString).orElse("nothing")
                            + " and may process committed batches again.");
            return null;
        }
        Path adopted = restorePoints.adopt(path);
        out.println(
                queryName
                        + ": stopped from outside with savepoint "
                        + path
                        + "; copied to "
                        + adopted
                        + ", the next run continues from it");
        return adopted;
    }
}
