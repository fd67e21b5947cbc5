package org.flinkss.runtime.query;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.StreamContextEnvironment;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointDir;
import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.RunScope;
import org.flinkss.runtime.progress.ProgressListener;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.impl.ExceptionHistory;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.time.Watermarks;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link Query} with its trigger on its checkpoint: Spark's {@code writeStream...start()}
 * and {@code awaitTermination()} in one call.
 *
 * <p>An availableNow run (the default):
 *
 * <ol>
 *   <li>refuses to start if another run of the query holds the checkpoint, or if the checkpoint
 *       belongs to a different query (before any data moves);
 *   <li>restores the query's newest complete checkpoint or savepoint;
 *   <li>submits the job; its sources plan batches of what exists now and each batch is committed by
 *       a checkpoint (sinks are two-phase-commit: nothing half-written is ever visible);
 *   <li>once every source has read what it planned, stops the job with a savepoint <em>without
 *       draining</em>, so open windows stay open in state and no {@code MAX_WATERMARK} is emitted;
 *   <li>prints and keeps each batch's progress, prunes older checkpoints, and returns.
 * </ol>
 *
 * <p>The same code runs on an embedded MiniCluster ({@code java -jar}), in tests, and under {@code
 * flink run} on a cluster: it only uses {@link StreamExecutionEnvironment} and the {@link
 * JobClient} it returns.
 */
public final class QueryRunner {

    private static final Duration POLL = Duration.ofMillis(100);
    private static final int STOP_ATTEMPTS = 50;
    private static final Duration HISTORY_REFRESH = Duration.ofMillis(200);

    private QueryRunner() {}

    /** The outcome of a run: the batches it committed and where its state now is. */
    public static final class Result {
        public final String queryId;
        public final String runId;
        public final List<ObjectNode> progress;
        public final ObjectNode lastProgress;
        public final Path savepoint;

        Result(
                String queryId,
                String runId,
                List<ObjectNode> progress,
                ObjectNode lastProgress,
                Path savepoint) {
            this.queryId = queryId;
            this.runId = runId;
            this.progress = progress;
            this.lastProgress = lastProgress;
            this.savepoint = savepoint;
        }

        public int batches() {
            return progress.size();
        }

        public long numInputRows() {
            return progress.stream().mapToLong(p -> p.path("numInputRows").asLong()).sum();
        }
    }

    public static Result run(Query query, RunOptions options) {
        try {
            return runOnce(query, options);
        } catch (CommitAfterSavepointFailed e) {
            // The savepoint holds the batch's committables: a run from it commits them again
            // (sinks are idempotent or transactional), then finds nothing new and stops.
            options.out.println(
                    "warning: "
                            + e.getMessage()
                            + "; running '"
                            + query.name()
                            + "' again to commit it");
            return runOnce(query, options);
        }
    }

    /** The stop's savepoint was taken, but committing the last batch failed. */
    private static final class CommitAfterSavepointFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CommitAfterSavepointFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static Result runOnce(Query query, RunOptions options) {
        String name = query.name();
        CheckpointDir checkpoint = new CheckpointDir(options.checkpointOf(name));
        if (options.trigger.isDeprecatedOnce()) {
            options.out.println(
                    "warning: trigger 'once' is deprecated, as in Spark: use available-now (same"
                            + " behaviour, and it honours rate limits)");
        }
        try (CheckpointDir.Lock lock = checkpoint.lock(name)) {
            String runId = UUID.randomUUID().toString();
            // Under `flink run` the environment is the client's: its configuration already holds
            // the client's conf dir and command-line options (-m, -p, -s).
            StreamExecutionEnvironment probe = StreamExecutionEnvironment.getExecutionEnvironment();
            ReadableConfig client =
                    probe instanceof StreamContextEnvironment ? probe.getConfiguration() : null;
            Optional<Path> restore = restorePoint(checkpoint, client, options.out);
            Path tmp = options.base.resolve("_tmp").resolve(runId);
            Configuration conf = configuration(options, checkpoint, restore, tmp, client);

            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            if (options.parallelism != null) {
                env.setParallelism(options.parallelism);
            }
            Warehouse warehouse = new Warehouse(options.warehouse);
            RunScope scope = new RunScope(checkpoint.layout(), runId);
            QueryContext context =
                    new QueryContext(name, env, checkpoint, scope, options, warehouse);
            query.build(context);
            String queryId = checkpoint.checkIdentity(context.identity());
            context.prepare();
            checkpoint.recordTables(context.identity());

            List<ObjectNode> committed = new ArrayList<>();
            List<ProgressListener> listeners = new ArrayList<>(options.listeners);
            listeners.add(committed::add);
            if (options.printProgress) {
                listeners.add(p -> options.out.println(p.toPrettyString()));
            }
            listeners.add(
                    p -> warnSkippedFiles(name, p, context.skippedFilesTables(), options.out));
            ProgressTracker tracker =
                    new ProgressTracker(
                            checkpoint.layout(),
                            queryId,
                            name,
                            runId,
                            context.sourceDescriptions(),
                            context.sinkDescriptions(),
                            listeners);
            recoverKilledRuns(checkpoint, tracker);

            try {
                Path savepoint =
                        execute(env, name, checkpoint, runId, context, options, tracker, client);
                ObjectNode last;
                List<ObjectNode> batches = List.copyOf(committed);
                if (tracker.batchesThisRun() == 0) {
                    last = tracker.noDataProgress(lastWatermark(checkpoint));
                } else {
                    last = committed.get(committed.size() - 1);
                }
                if (savepoint != null) {
                    checkpoint.pruneExcept(savepoint);
                    for (String table : context.tables()) {
                        warehouse.deleteOrphans(table);
                    }
                }
                return new Result(queryId, runId, batches, last, savepoint);
            } finally {
                Folders.deleteQuietly(tmp);
            }
        }
    }

    /** A skipped file is never a silent drop: one warning line each, when its batch commits. */
    private static void warnSkippedFiles(
            String query, ObjectNode progress, List<String> tables, PrintStream out) {
        for (JsonNode source : progress.path("sources")) {
            for (JsonNode file : source.path("skippedFiles")) {
                out.println(
                        "warning: "
                                + query
                                + ": skipped "
                                + file.asText()
                                + ", planned in batch "
                                + progress.path("batchId").asLong()
                                + ": it was gone when read (--skip-missing-files); recorded in the"
                                + " batch's progress"
                                + (tables.isEmpty() ? "" : " and in " + String.join(", ", tables)));
            }
        }
    }

    private static long lastWatermark(CheckpointDir checkpoint) {
        List<ObjectNode> history = ProgressTracker.history(checkpoint.layout());
        if (history.isEmpty()) {
            return Watermarks.NONE;
        }
        ObjectNode last = history.get(history.size() - 1);
        return last.path("sources").path(0).path("watermarkAfter").asLong(Watermarks.NONE);
    }

    /** Progress that a killed driver could not merge: keep what its checkpoints committed. */
    private static void recoverKilledRuns(CheckpointDir checkpoint, ProgressTracker tracker) {
        for (String run : tracker.pendingRuns()) {
            Optional<String> job = checkpoint.jobOf(run);
            List<Long> completed = job.map(checkpoint::completedCheckpoints).orElse(List.of());
            if (!completed.isEmpty()) {
                tracker.commit(run, completed.get(completed.size() - 1));
            }
            tracker.discard(run);
        }
    }

    /**
     * The checkpoint directory's newest restore point. A savepoint given to {@code flink run -s} is
     * taken instead only if it is newer (one the directory never saw, e.g. from a {@code flink stop
     * --savepointPath} while no client watched the job); an older one would replay committed
     * batches and is ignored.
     */
    static Optional<Path> restorePoint(
            CheckpointDir checkpoint, ReadableConfig client, PrintStream out) {
        Optional<Path> newest = checkpoint.newestRestorePoint();
        Optional<String> given =
                client == null
                        ? Optional.empty()
                        : client.getOptional(StateRecoveryOptions.SAVEPOINT_PATH);
        if (given.isEmpty()) {
            return newest;
        }
        Path path = localPath(given.get());
        if (path != null && path.getFileName().toString().equals("_metadata")) {
            path = path.getParent();
        }
        if (path == null || !Files.exists(path.resolve("_metadata"))) {
            out.println(
                    "note: ignoring -s "
                            + given.get()
                            + ": not a local savepoint folder with a _metadata file; "
                            + "restoring from the checkpoint "
                            + newest.map(Path::toString).orElse("(none yet: a first run)"));
            return newest;
        }
        if (newest.isPresent()
                && CheckpointDir.metadataTime(newest.get())
                                .compareTo(CheckpointDir.metadataTime(path))
                        >= 0) {
            if (newest.get().getFileName().equals(path.getFileName())) {
                out.println(
                        "note: -s "
                                + given.get()
                                + " is already in the checkpoint as "
                                + newest.get()
                                + "; restoring from it");
            } else {
                out.println(
                        "note: ignoring -s "
                                + given.get()
                                + ": the checkpoint has a newer restore point, "
                                + newest.get()
                                + " (the older one would process committed batches again)");
            }
            return newest;
        }
        out.println(
                "note: restoring from -s "
                        + path
                        + ", newer than everything in "
                        + checkpoint.path());
        return Optional.of(path);
    }

    private static Path localPath(String location) {
        try {
            URI uri = URI.create(location);
            if (uri.getScheme() == null) {
                return Paths.get(location).toAbsolutePath().normalize();
            }
            return "file".equals(uri.getScheme()) ? Paths.get(uri).normalize() : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static Configuration configuration(
            RunOptions options,
            CheckpointDir checkpoint,
            Optional<Path> restore,
            Path tmp,
            ReadableConfig client) {
        Path confDir = options.flinkConfDir;
        if (client != null) {
            // Under `flink run`: the client has read its conf dir and the command line. Loading a
            // config.yaml again would override them, since the program's settings win (-p, -m).
            confDir = null;
        } else if (confDir == null) {
            String env = System.getenv("FLINK_CONF_DIR");
            if (env != null && Files.exists(Paths.get(env, "config.yaml"))) {
                confDir = Paths.get(env);
            } else if (Files.exists(Paths.get("flink-conf", "config.yaml"))) {
                confDir = Paths.get("flink-conf");
            } else if (Files.exists(Paths.get("..", "flink-conf", "config.yaml"))) {
                confDir = Paths.get("..", "flink-conf");
            }
        }
        Configuration conf =
                confDir != null
                        ? GlobalConfiguration.loadConfiguration(confDir.toString())
                        : new Configuration();
        // An embedded cluster must not take the web UI port of a real one running beside it.
        conf.set(RestOptions.BIND_PORT, "0");
        conf.removeConfig(RestOptions.PORT);
        conf.set(CoreOptions.TMP_DIRS, tmp.toString());

        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        conf.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                checkpoint.checkpoints().toUri().toString());
        conf.set(
                CheckpointingOptions.SAVEPOINT_DIRECTORY,
                checkpoint.savepoints().toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        Duration interval =
                options.checkpointInterval != null
                        ? options.checkpointInterval
                        : options.trigger.interval();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 2);
        // Every operator of the project makes new records or keeps them serialized in state, so
        // chained operators may hand records on without Flink copying each one.
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        if (!conf.containsKey("state.backend.rocksdb.timer-service.factory")) {
            // Every window, key and join row has an event-time timer; on the heap they cost a
            // fraction of RocksDB timers (state stays in RocksDB). Set ROCKSDB for huge timer
            // counts.
            conf.setString("state.backend.rocksdb.timer-service.factory", "HEAP");
        }
        conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ZERO);
        if (client == null && !conf.containsKey("security.delegation.tokens.enabled")) {
            // An embedded cluster talks to no Kerberos realm; looking up Hadoop's and HBase's token
            // providers costs about 0.2 s of every run's start.
            conf.setString("security.delegation.tokens.enabled", "false");
        }
        if (!conf.containsKey("restart-strategy.type")
                && (client == null || !client.toMap().containsKey("restart-strategy.type"))) {
            // Flink's default with checkpoints restarts forever: a run that keeps failing must end.
            conf.setString("restart-strategy.type", "exponential-delay");
            conf.setString("restart-strategy.exponential-delay.initial-backoff", "1 s");
            conf.setString("restart-strategy.exponential-delay.max-backoff", "10 s");
            conf.setString(
                    "restart-strategy.exponential-delay.attempts-before-reset-backoff", "10");
        }
        restore.ifPresent(p -> conf.set(StateRecoveryOptions.SAVEPOINT_PATH, p.toUri().toString()));
        options.flinkOverrides.forEach(conf::setString);
        return conf;
    }

    private static Path execute(
            StreamExecutionEnvironment env,
            String name,
            CheckpointDir checkpoint,
            String runId,
            QueryContext context,
            RunOptions options,
            ProgressTracker tracker,
            ReadableConfig flinkClient) {
        JobClient client;
        try {
            client = env.executeAsync(name);
        } catch (Exception e) {
            throw new QueryException(
                    "query '" + name + "' could not start: " + ExceptionUtils.stringifyException(e),
                    e);
        }
        String jobId = client.getJobID().toString();
        checkpoint.recordJob(runId, jobId);
        ExceptionHistory failures = new ExceptionHistory(client, flinkClient);
        Thread stopOnExit = null;
        if (!options.trigger.isAvailableNow()) {
            // An unbounded run ends on Ctrl-C: stop with a savepoint so that the next run resumes.
            stopOnExit = new Thread(() -> stopWithSavepoint(client, name, checkpoint, failures));
            Runtime.getRuntime().addShutdownHook(stopOnExit);
        }
        try {
            return await(
                    client,
                    name,
                    checkpoint,
                    runId,
                    context,
                    options,
                    tracker,
                    flinkClient,
                    failures);
        } finally {
            if (stopOnExit != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(stopOnExit);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running: it does the stop
                }
            }
        }
    }

    private static Path await(
            JobClient client,
            String name,
            CheckpointDir checkpoint,
            String runId,
            QueryContext context,
            RunOptions options,
            ProgressTracker tracker,
            ReadableConfig flinkClient,
            ExceptionHistory failures) {
        String jobId = client.getJobID().toString();
        long committedUpTo = -1;
        long deadline =
                options.runFor == null
                        ? Long.MAX_VALUE
                        : System.nanoTime() + options.runFor.toNanos();
        while (true) {
            JobStatus status = status(client, name);
            if (status == JobStatus.RESTARTING || status == JobStatus.FAILING) {
                // An embedded cluster shuts down as its job fails: read the failures while it runs.
                failures.refreshAtMostEvery(HISTORY_REFRESH);
            }
            if (status.isGloballyTerminalState()) {
                if (status == JobStatus.FAILED || status == JobStatus.CANCELED) {
                    throw new QueryException(
                            "query '"
                                    + name
                                    + "' "
                                    + status.name().toLowerCase()
                                    + ": "
                                    + failureCause(client, failures)
                                    + "\nThe checkpoint "
                                    + checkpoint.path()
                                    + " keeps what was committed; fix the cause and run it again.");
                }
                // FINISHED: the source never ends by itself, so someone stopped the job with a
                // savepoint (`flink stop`). It committed everything; make it this query's.
                tracker.commit(runId, Long.MAX_VALUE);
                return adoptExternalSavepoint(flinkClient, jobId, name, checkpoint, options.out);
            }
            List<Long> completed = checkpoint.completedCheckpoints(jobId);
            if (!completed.isEmpty() && completed.get(completed.size() - 1) > committedUpTo) {
                committedUpTo = completed.get(completed.size() - 1);
                tracker.commit(runId, committedUpTo);
            }
            if (options.trigger.isAvailableNow()
                    && caughtUp(checkpoint, runId, context.sourceNames())) {
                break;
            }
            if (!options.trigger.isAvailableNow() && System.nanoTime() > deadline) {
                break;
            }
            sleep(POLL);
        }
        Path savepoint = stopWithSavepoint(client, name, checkpoint, failures);
        // The savepoint is the last checkpoint of the run: everything reported up to it is
        // committed.
        tracker.commit(runId, Long.MAX_VALUE);
        return savepoint;
    }

    /**
     * A job stopped from outside ({@code flink stop [--savepointPath DIR]}) left its savepoint
     * wherever that command said, and Flink deleted the job's checkpoints when it finished: the
     * checkpoint directory would restore an older state and process committed batches again. So the
     * savepoint (found through the REST API) is copied into {@code savepoints/}.
     */
    private static Path adoptExternalSavepoint(
            ReadableConfig flinkClient,
            String jobId,
            String name,
            CheckpointDir checkpoint,
            PrintStream out) {
        String where = null;
        if (flinkClient != null) {
            try {
                String url =
                        "http://"
                                + flinkClient.get(RestOptions.ADDRESS)
                                + ":"
                                + flinkClient.get(RestOptions.PORT)
                                + "/jobs/"
                                + jobId
                                + "/checkpoints";
                HttpResponse<String> response =
                        HttpClient.newBuilder()
                                .connectTimeout(Duration.ofSeconds(10))
                                .build()
                                .send(
                                        HttpRequest.newBuilder(URI.create(url))
                                                .timeout(Duration.ofSeconds(30))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                JsonNode savepoint =
                        JsonFiles.JSON.readTree(response.body()).path("latest").path("savepoint");
                if (response.statusCode() == 200
                        && "COMPLETED".equals(savepoint.path("status").asText())) {
                    where = savepoint.path("external_path").asText(null);
                }
            } catch (Exception e) {
                out.println(
                        "warning: could not ask the JobManager for the savepoint of job "
                                + jobId
                                + ": "
                                + e);
            }
        }
        Path path = where == null ? null : localPath(where);
        if (path == null || !Files.exists(path.resolve("_metadata"))) {
            out.println(
                    "warning: query '"
                            + name
                            + "' (job "
                            + jobId
                            + ") was stopped from outside and its savepoint"
                            + (where == null
                                    ? " is unknown"
                                    : " " + where + " is not a local folder")
                            + ". Pass it to the next run with"
                            + " flink run -s <savepoint>; without it the run restores "
                            + checkpoint.newestRestorePoint().map(Path::toString).orElse("nothing")
                            + " and may process committed batches again.");
            return null;
        }
        Path adopted = checkpoint.adoptSavepoint(path);
        out.println(
                name
                        + ": stopped from outside with savepoint "
                        + path
                        + "; copied to "
                        + adopted
                        + ", the next run continues from it");
        return adopted;
    }

    private static boolean caughtUp(CheckpointDir checkpoint, String runId, List<String> sources) {
        for (String source : sources) {
            if (!Files.exists(checkpoint.layout().caughtUpMarker(runId, source))) {
                return false;
            }
        }
        return true;
    }

    private static Path stopWithSavepoint(
            JobClient client, String name, CheckpointDir checkpoint, ExceptionHistory failures) {
        Exception last = null;
        for (int attempt = 1; attempt <= STOP_ATTEMPTS; attempt++) {
            try {
                // No drain: open windows stay in state and no MAX_WATERMARK closes them.
                String path =
                        client.stopWithSavepoint(
                                        false,
                                        checkpoint.savepoints().toUri().toString(),
                                        SavepointFormatType.CANONICAL)
                                .get(5, TimeUnit.MINUTES);
                client.getJobExecutionResult().get(5, TimeUnit.MINUTES);
                return Paths.get(URI.create(path.startsWith("file:") ? path : "file://" + path));
            } catch (Exception e) {
                last = e;
                JobStatus status = status(client, name);
                if (status.isGloballyTerminalState()
                        && ExceptionUtils.findThrowableWithMessage(
                                        e, "A savepoint has been created at")
                                .isPresent()) {
                    throw new CommitAfterSavepointFailed(
                            "query '"
                                    + name
                                    + "' took its savepoint but failed to commit its last batch ("
                                    + failureCause(client, failures).split("\n")[0]
                                    + ")",
                            e);
                }
                if (status.isGloballyTerminalState()) {
                    throw new QueryException(
                            "query '"
                                    + name
                                    + "' ended ("
                                    + status
                                    + ") while stopping with a savepoint: "
                                    + failureCause(client, failures),
                            e);
                }
                // "Not all required tasks are currently running" right after the catch-up: try
                // again.
                sleep(Duration.ofMillis(attempt < 30 ? 100 : 1000));
            }
        }
        throw new QueryException(
                "query '"
                        + name
                        + "' could not stop with a savepoint into "
                        + checkpoint.savepoints()
                        + " after "
                        + STOP_ATTEMPTS
                        + " attempts: "
                        + ExceptionUtils.stringifyException(last),
                last);
    }

    private static JobStatus status(JobClient client, String name) {
        try {
            return client.getJobStatus().get(1, TimeUnit.MINUTES);
        } catch (Exception e) {
            // After a stop the MiniCluster may no longer know the job: it is over.
            try {
                client.getJobExecutionResult().get(10, TimeUnit.SECONDS);
                return JobStatus.FINISHED;
            } catch (Exception failed) {
                return JobStatus.FAILED;
            }
        }
    }

    /**
     * Why a job failed, the exception to fix first: when the final cause is the global restart that
     * a source asks for after a task failed, the task's own exception comes from Flink's exception
     * history (see {@link ExceptionHistory}).
     */
    private static String failureCause(JobClient client, ExceptionHistory failures) {
        try {
            client.getJobExecutionResult().get(30, TimeUnit.SECONDS);
            return "no error reported";
        } catch (ExecutionException e) {
            failures.refresh();
            return failures.explain(e.getCause());
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryException("interrupted");
        }
    }
}
