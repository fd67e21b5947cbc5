package org.flinkss.runtime.runner;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.TestPauses;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLock;
import org.flinkss.runtime.checkpoint.IdentityStore;
import org.flinkss.runtime.checkpoint.ResetMarker;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.checkpoint.RunFence;
import org.flinkss.runtime.checkpoint.RunRecords;
import org.flinkss.runtime.checkpoint.WarehouseBinding;
import org.flinkss.runtime.progress.ProgressListener;
import org.flinkss.runtime.progress.ProgressLog;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.runner.impl.CheckpointRequests;
import org.flinkss.runtime.runner.impl.ClientHeartbeat;
import org.flinkss.runtime.runner.impl.ClusterSlots;
import org.flinkss.runtime.runner.impl.CommitAfterSavepointFailed;
import org.flinkss.runtime.runner.impl.DamagedRestorePoints;
import org.flinkss.runtime.runner.impl.EarlierRunJobs;
import org.flinkss.runtime.runner.impl.EarlyMiniCluster;
import org.flinkss.runtime.runner.impl.ExceptionHistory;
import org.flinkss.runtime.runner.impl.FailureExplainer;
import org.flinkss.runtime.runner.impl.InterruptedRun;
import org.flinkss.runtime.runner.impl.JobConfiguration;
import org.flinkss.runtime.runner.impl.JobManagerRest;
import org.flinkss.runtime.runner.impl.JobStopper;
import org.flinkss.runtime.runner.impl.JobWatcher;
import org.flinkss.runtime.runner.impl.KilledRunRecovery;
import org.flinkss.runtime.runner.impl.RelocatedRestorePoints;
import org.flinkss.runtime.runner.impl.RestAddressNotice;
import org.flinkss.runtime.runner.impl.RestorePolicy;
import org.flinkss.runtime.runner.impl.RocksDbLibrary;
import org.flinkss.runtime.runner.impl.SavepointAdopter;
import org.flinkss.runtime.runner.impl.SkippedFilesWarning;
import org.flinkss.runtime.runner.impl.StopRetries;

import javax.annotation.Nullable;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * One run of a query on its checkpoint directory, Spark's {@code writeStream...start()} and {@code
 * awaitTermination()} in one call. An availableNow run (the default):
 *
 * <ol>
 *   <li>holds the checkpoint directory, and refuses to start if another run holds it, if the
 *       directory was made with another layout version or belongs to a different query (before any
 *       data moves);
 *   <li>fences earlier runs ({@link RunFence}): cancels a job of an earlier run that still runs on
 *       a cluster though its client is gone ({@link EarlierRunJobs}), then takes the directory for
 *       this run; while it runs, it tells its job it is alive ({@link ClientHeartbeat});
 *   <li>restores the query's newest complete checkpoint or savepoint ({@link RestorePolicy});
 *   <li>submits the job; its sources plan batches of what exists now and each batch is committed by
 *       a checkpoint (sinks are two-phase-commit: nothing half-written is ever visible);
 *   <li>once every source has read what it planned, stops the job with a savepoint without draining
 *       ({@link JobStopper}), so open windows stay open in state;
 *   <li>prints and keeps each batch's progress, prunes older restore points, and returns.
 * </ol>
 *
 * <p>The same code runs on an embedded MiniCluster ({@code java -jar}), in tests, and under {@code
 * flink run} on a cluster: it only uses {@link StreamExecutionEnvironment} and the {@link
 * JobClient} it returns.
 */
public final class QueryRun {

    private static final Duration REST_TIMEOUT = Duration.ofSeconds(5);

    /** How long the end of a run waits for the answers to its last checkpoint requests. */
    private static final Duration ANSWERS_WAIT = Duration.ofSeconds(5);

    private static final Duration ADOPT_TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final CheckpointLayout layout;
    private final RunSettings settings;
    private final IdentityStore identity;
    private final RestorePoints restorePoints;
    private final RunRecords runs;
    @Nullable private final Path warehouse;

    public QueryRun(String name, CheckpointLayout layout, RunSettings settings) {
        this(name, layout, settings, null);
    }

    /**
     * A run whose checkpoint is bound to {@code warehouse} ({@link WarehouseBinding}): recorded at
     * its first run, a run with another one refused before anything moves.
     */
    public QueryRun(
            String name, CheckpointLayout layout, RunSettings settings, @Nullable Path warehouse) {
        this.warehouse = warehouse;
        this.name = name;
        this.layout = layout;
        this.settings = settings;
        this.identity = new IdentityStore(layout);
        this.restorePoints = new RestorePoints(layout);
        this.runs = new RunRecords(layout);
    }

    /** Runs the job that {@code builder} builds until its trigger says the run is over. */
    public RunOutcome run(JobBuilder builder) {
        try {
            return runOnce(builder);
        } catch (CommitAfterSavepointFailed e) {
            // The savepoint holds the batch's committables: a run from it commits them again
            // (sinks are idempotent or transactional), then finds nothing new and stops.
            settings.out.println(
                    "warning: "
                            + e.getMessage()
                            + "\n  Running '"
                            + name
                            + "' again to commit it.");
            return runOnce(builder);
        } catch (RestartedWhileStopping e) {
            settings.out.println(
                    "warning: "
                            + e.getMessage()
                            + "\n  Running '"
                            + name
                            + "' again to read the rest.");
            try {
                return runOnce(builder);
            } catch (RestartedWhileStopping again) {
                throw new QueryException(
                        again.getMessage()
                                + ", a second time. The checkpoint "
                                + layout
                                + " keeps what was committed: fix the cause and run it again.");
            }
        }
    }

    private RunOutcome runOnce(JobBuilder builder) {
        if (settings.trigger.isDeprecatedOnce()) {
            settings.out.println(
                    "warning: trigger 'once' is deprecated, as in Spark: use available-now (same"
                            + " behaviour, and it honours rate limits)");
        }
        String runId = UUID.randomUUID().toString();
        // Until the job is submitted and the run's own hook speaks: nothing of a batch is written.
        EarlyInterruption.at(
                "query '"
                        + name
                        + "': interrupted while starting, before its job ran; no batch was"
                        + " processed and no row written. Run it again: it starts where the last"
                        + " run ended.");
        try (CheckpointLock lock =
                CheckpointLock.acquire(layout, name, runId, settings.leaseTime)) {
            // A reset killed part-way: its tables may be half handed over. Refused, not completed
            // here: emptying tables is the reset's to do, and the user asked for a run.
            Optional<ResetMarker> reset = ResetMarker.read(layout);
            if (reset.isPresent()) {
                throw new QueryException(
                        "checkpoint "
                                + layout
                                + ": "
                                + reset.get().wayOut()
                                + ". Nothing was run.");
            }
            identity.checkLayout(name);
            if (warehouse != null) {
                new WarehouseBinding(layout).check(name, warehouse);
            }
            // Before anything is restored: no job of an earlier run may go on beside this one.
            // Cancelled over REST first (it says so), then fenced: a job that could not be
            // reached stops at its next check of the fence, or its client's heartbeat.
            new EarlierRunJobs(layout, name, settings.out).stop();
            RunFence.claim(layout, runId);
            ReadableConfig flinkRunClient = JobConfiguration.flinkRunClient();
            new DamagedRestorePoints(layout, restorePoints, name, settings.out).setAside();
            Optional<Path> restore =
                    new RelocatedRestorePoints(layout, restorePoints, name, settings.out)
                            .usable(
                                    new RestorePolicy(
                                                    restorePoints,
                                                    layout.location(),
                                                    flinkRunClient,
                                                    settings.out)
                                            .choose());
            // The temporary files of this query's earlier runs are left only by killed drivers:
            // no other run of the query is active while this one holds the lock.
            RunTmpFolders.removeLeftovers(settings.tmpRoot, name);
            File tmp = RunTmpFolders.of(settings.tmpRoot, name, runId);
            EarlyInterruption.runFolder(tmp);
            EarlyMiniCluster early = null;
            try {
                Configuration conf =
                        settings.jobConfiguration(
                                        layout, flinkRunClient, settings.out, settings.announce)
                                .servingWebUi(settings.webUi)
                                .build(restore, tmp, settings.parallelism);
                if (flinkRunClient != null) {
                    ClusterSlots.check(flinkRunClient, settings.parallelism, name);
                } else {
                    // The embedded cluster's stateful tasks need it: loaded while it starts.
                    RocksDbLibrary.preloadInBackground();
                }
                StreamExecutionEnvironment env =
                        StreamExecutionEnvironment.getExecutionEnvironment(conf);
                if (env instanceof LocalStreamEnvironment) {
                    // java -jar: the embedded cluster starts while the job is built.
                    early = EarlyMiniCluster.start(conf, settings.parallelism);
                    env = early.environment();
                }
                if (settings.parallelism != null) {
                    env.setParallelism(settings.parallelism);
                }
                BuiltJob job =
                        builder.build(env, new RunScope(layout, runId, RunSettings.CLIENT_TIMEOUT));
                String queryId = identity.claim(job.identity());
                if (warehouse != null) {
                    new WarehouseBinding(layout).record(warehouse);
                }
                job.prepare();

                List<ObjectNode> committed = new ArrayList<>();
                ProgressTracker tracker = tracker(job, queryId, runId, committed);
                new KilledRunRecovery(runs, restorePoints, tracker).recover();

                TestPauses.at("run-before-submit");
                Path savepoint = execute(env, job, runId, lock, tracker, flinkRunClient);
                // Before noDataProgress, which tells the listeners too: it is no batch.
                List<ObjectNode> batches = List.copyOf(committed);
                ObjectNode last =
                        tracker.batchesThisRun() == 0
                                ? tracker.noDataProgress(new ProgressLog(layout).lastWatermark())
                                : batches.get(batches.size() - 1);
                if (savepoint != null) {
                    restorePoints.pruneExcept(savepoint);
                    runs.clear();
                    job.afterFinalSavepoint();
                }
                return new RunOutcome(queryId, runId, batches, last, savepoint);
            } finally {
                if (early != null) {
                    early.close();
                }
                RunTmpFolders.removeLeftovers(settings.tmpRoot, name);
                EarlyInterruption.silence();
            }
        }
    }

    private ProgressTracker tracker(
            BuiltJob job, String queryId, String runId, List<ObjectNode> committed) {
        List<ProgressListener> listeners = new ArrayList<>(settings.listeners);
        listeners.add(committed::add);
        if (settings.printProgress) {
            listeners.add(p -> settings.out.println(p.toPrettyString()));
        }
        listeners.add(new SkippedFilesWarning(name, job.skippedFilesTables(), settings.out));
        return new ProgressTracker(
                layout,
                queryId,
                name,
                runId,
                job.sourceDescriptions(),
                job.sinkDescriptions(),
                listeners);
    }

    /**
     * Submits the job and returns the savepoint it ended with. The job hears from this process
     * until then: without that heartbeat it stops itself.
     */
    @Nullable
    private Path execute(
            StreamExecutionEnvironment env,
            BuiltJob job,
            String runId,
            CheckpointLock lock,
            ProgressTracker tracker,
            @Nullable ReadableConfig flinkRunClient) {
        try (ClientHeartbeat heartbeat = ClientHeartbeat.start(layout, runId, lock, settings.out)) {
            return submitAndWatch(env, job, runId, tracker, flinkRunClient);
        }
    }

    @Nullable
    private Path submitAndWatch(
            StreamExecutionEnvironment env,
            BuiltJob job,
            String runId,
            ProgressTracker tracker,
            @Nullable ReadableConfig flinkRunClient) {
        JobClient client;
        try {
            client = env.executeAsync(name);
        } catch (Exception e) {
            throw new QueryException(
                    "query '" + name + "' could not start: " + ExceptionUtils.stringifyException(e),
                    e);
        }
        runs.recordJob(
                runId,
                client.getJobID().toString(),
                flinkRunClient == null ? null : JobManagerRest.of(flinkRunClient),
                RunSettings.CLIENT_TIMEOUT);
        if (flinkRunClient == null && settings.announce) {
            RestAddressNotice.print(client, settings.webUi, settings.out);
        }
        FailureExplainer failures =
                new FailureExplainer(
                        client,
                        new ExceptionHistory(
                                new JobManagerRest(client, flinkRunClient, REST_TIMEOUT)));
        JobStopper stopper =
                new JobStopper(client, name, layout.savepoints(), failures, StopRetries.DEFAULT);
        CheckpointRequests checkpointRequests =
                new CheckpointRequests(new JobManagerRest(client, flinkRunClient, REST_TIMEOUT));
        // Ctrl-C: an unbounded run stops with a savepoint, an availableNow run's job is cancelled;
        // either way the hook says what was kept.
        try (InterruptedRun interruption =
                InterruptedRun.install(
                        name,
                        layout,
                        client,
                        settings.trigger.isAvailableNow() ? null : stopper,
                        settings.out)) {
            EarlyInterruption.silence(); // the run's hook speaks now
            JobWatcher.Ending ending;
            try {
                ending =
                        new JobWatcher(
                                        client,
                                        name,
                                        layout,
                                        runId,
                                        job.sourceNames(),
                                        settings.trigger.isAvailableNow(),
                                        settings.runFor,
                                        tracker,
                                        failures,
                                        settings.out,
                                        checkpointRequests)
                                .watch();
            } catch (RuntimeException e) {
                if (interruption.isInterrupted()) {
                    interruption.awaitHook(); // the job ended because of Ctrl-C: the hook says so
                }
                throw e;
            }
            if (interruption.isInterrupted()) {
                interruption.awaitHook();
                return null;
            }
            if (ending == JobWatcher.Ending.STOPPED_FROM_OUTSIDE) {
                // `flink stop` took a savepoint of everything reported: make it this query's.
                tracker.commit(runId, Long.MAX_VALUE);
                return new SavepointAdopter(
                                new JobManagerRest(client, flinkRunClient, ADOPT_TIMEOUT),
                                restorePoints,
                                name,
                                settings.out)
                        .adopt();
            }
            // The answers to the checkpoints asked for, read while the job and its embedded cluster
            // still run: the job's end shuts the cluster down, which then waits for every answer
            // nobody read (a request for the batch before the last, made just before the stop,
            // kept a 50-batch run waiting 30 s for its exit).
            checkpointRequests.readRemainingAnswers(ANSWERS_WAIT);
            Path savepoint = stopper.stop();
            // The savepoint is the last checkpoint of the run: everything reported up to it is
            // committed.
            tracker.commit(runId, Long.MAX_VALUE);
            if (settings.trigger.isAvailableNow() && stopper.failedOverWhileStopping()) {
                throw new RestartedWhileStopping(
                        "query '"
                                + name
                                + "' failed over while stopping with a savepoint ("
                                + failures.cause()
                                + ") and was stopped again where its restore from the last"
                                + " checkpoint had got to, before it had read everything"
                                + " available; its savepoint "
                                + savepoint
                                + " keeps that point");
            }
            return savepoint;
        } finally {
            // Those asked for since, or left by a run that ended otherwise (Ctrl-C, a failure),
            // as far as the cluster still answers.
            checkpointRequests.readRemainingAnswers(ANSWERS_WAIT);
        }
    }
}
