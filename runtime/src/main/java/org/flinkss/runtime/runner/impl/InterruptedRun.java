package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.Path;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.progress.ProgressTracker;

import javax.annotation.Nullable;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What Ctrl-C (or a {@code kill}) does to a run, from a JVM shutdown hook: it ends the job and says
 * what was kept, the last committed batch and where the next run resumes.
 *
 * <ul>
 *   <li>A run that is not availableNow is stopped with a savepoint into the checkpoint ({@link
 *       JobStopper}): the next run resumes from it.
 *   <li>An availableNow run's job is cancelled (under {@code flink run} it would go on running on
 *       the cluster otherwise): the next run resumes after the last committed batch, from the
 *       newest completed checkpoint, and reads again what the interrupted batch had started.
 * </ul>
 *
 * While the hook works, the run's own thread sees the job end; it must not take that for a stop
 * from outside ({@link #isInterrupted}), and waits for the hook instead ({@link #awaitHook}).
 */
@Internal
public final class InterruptedRun implements AutoCloseable {

    /** How long the hook waits for the run's thread to record the job's last batches. */
    private static final long WATCHER_WAIT_SECONDS = 30;

    private final String queryName;
    private final CheckpointLayout layout;
    private final JobClient client;
    @Nullable private final JobStopper stopper;
    private final PrintStream out;
    private final Thread hook;
    private final CountDownLatch done = new CountDownLatch(1);

    /** Counted down once the run's thread stopped watching the job (see {@link #awaitHook}). */
    private final CountDownLatch watched = new CountDownLatch(1);

    private volatile boolean interrupted;

    private InterruptedRun(
            String queryName,
            CheckpointLayout layout,
            JobClient client,
            @Nullable JobStopper stopper,
            PrintStream out) {
        this.queryName = queryName;
        this.layout = layout;
        this.client = client;
        this.stopper = stopper;
        this.out = out;
        this.hook = new Thread(this::onExit, "flinkss-interrupted-run");
    }

    /**
     * Installs the hook for the run of {@code client}.
     *
     * @param stopper stops the job with a savepoint; null to cancel it (an availableNow run)
     */
    public static InterruptedRun install(
            String queryName,
            CheckpointLayout layout,
            JobClient client,
            @Nullable JobStopper stopper,
            PrintStream out) {
        InterruptedRun run = new InterruptedRun(queryName, layout, client, stopper, out);
        Runtime.getRuntime().addShutdownHook(run.hook);
        return run;
    }

    /** Whether the JVM is exiting (Ctrl-C) and the hook ends the job. */
    public boolean isInterrupted() {
        return interrupted;
    }

    /**
     * Called by the run's thread once it saw the job end while interrupted: waits for the hook to
     * have said what was kept. The JVM exits then, so this does not return in practice.
     */
    public void awaitHook() {
        watched.countDown();
        try {
            done.await(10, TimeUnit.MINUTES);
            // The JVM halts once every hook is done: print nothing more meanwhile.
            Thread.sleep(TimeUnit.MINUTES.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void onExit() {
        interrupted = true;
        try {
            if (stopper != null) {
                Path savepoint;
                try {
                    savepoint = stopper.stop();
                } catch (RuntimeException e) {
                    out.println(
                            "warning: query '"
                                    + queryName
                                    + "' was interrupted and could not stop with a savepoint: "
                                    + e.getMessage());
                    out.println(
                            kept(
                                    "the job was not stopped cleanly",
                                    "the newest completed checkpoint"));
                    return;
                }
                out.println(
                        kept(
                                "stopped with a savepoint",
                                "savepoint " + RestorePoints.shown(savepoint)));
            } else {
                try {
                    client.cancel().get(1, TimeUnit.MINUTES);
                } catch (Exception e) {
                    // An embedded cluster may be going down with this JVM: its job ends with it.
                }
                out.println(
                        kept(
                                "the job was cancelled",
                                "the newest completed checkpoint (after the last committed"
                                        + " batch; what the interrupted batch had read is read"
                                        + " again)"));
            }
        } finally {
            out.flush();
            done.countDown();
        }
    }

    /**
     * The line that says what the interrupted run kept and where the next one resumes. The run's
     * thread records each completed checkpoint's batch in the progress log as it sees it, the last
     * one when it sees the job end: the line waits for that (a bounded time), so that it names the
     * batch the job really committed last.
     */
    String kept(String how, String restorePoint) {
        try {
            watched.await(WATCHER_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<ObjectNode> history = ProgressTracker.history(layout);
        String last =
                history.isEmpty()
                        ? "none yet"
                        : history.get(history.size() - 1).path("batchId").asText();
        return queryName
                + ": interrupted; "
                + how
                + ". Last committed batch: "
                + last
                + " (progress log "
                + RestorePoints.shown(layout.progressLog())
                + "). The next run resumes from "
                + restorePoint
                + " in "
                + layout
                + "; no committed batch is processed again.";
    }

    /** Removes the hook: the run ended by itself. */
    @Override
    public void close() {
        watched.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs or has run
        }
    }
}
