package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLock;
import org.flinkss.runtime.checkpoint.RunFence;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The client's sign of life for its job: {@code runs/<run>/heartbeat}, rewritten every {@link
 * #INTERVAL} while the run lasts, from a thread of its own. A job that sees it unchanged for its
 * client timeout stops itself ({@link RunFence}).
 *
 * <p>Each beat also renews the run's {@link CheckpointLock} (the lease of a checkpoint on an object
 * store). A run whose lease was taken over (it stalled past the lease time, and another run
 * started) stops beating, with a warning: its job then stops itself, so two runs never write one
 * checkpoint for longer than the client timeout.
 */
@Internal
public final class ClientHeartbeat implements AutoCloseable {

    public static final Duration INTERVAL = Duration.ofSeconds(2);

    private final Path file;
    @Nullable private final CheckpointLock lock;
    private final PrintStream out;
    private final ScheduledExecutorService thread;
    private long beats;
    private boolean lost;

    private ClientHeartbeat(Path file, @Nullable CheckpointLock lock, PrintStream out) {
        this.file = file;
        this.lock = lock;
        this.out = out;
        this.thread =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "flinkss-client-heartbeat");
                            t.setDaemon(true);
                            return t;
                        });
    }

    /** Writes the first beat now, then one every {@link #INTERVAL} until closed. */
    public static ClientHeartbeat start(CheckpointLayout layout, String runId) {
        return start(layout, runId, null, System.out);
    }

    /**
     * Writes the first beat now, then one every {@link #INTERVAL} until closed, each renewing
     * {@code lock}; a lost lock is reported on {@code out}.
     */
    public static ClientHeartbeat start(
            CheckpointLayout layout, String runId, @Nullable CheckpointLock lock, PrintStream out) {
        ClientHeartbeat heartbeat = new ClientHeartbeat(layout.heartbeat(runId), lock, out);
        heartbeat.beat();
        heartbeat.thread.scheduleAtFixedRate(
                heartbeat::beat, INTERVAL.toMillis(), INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        return heartbeat;
    }

    private synchronized void beat() {
        if (lost) {
            return;
        }
        if (lock != null) {
            try {
                lock.renew();
            } catch (QueryException e) {
                lost = true;
                out.println("warning: " + e.getMessage() + "; its job stops without heartbeats");
                return;
            } catch (IOException | RuntimeException e) {
                // The store could not be reached: the next beat renews it, well within the lease.
            }
        }
        try {
            Storage.replaceText(
                    file,
                    ++beats + " " + Instant.now() + " pid " + ProcessHandle.current().pid() + "\n");
        } catch (IOException | RuntimeException e) {
            // Missed beats are what the job watches for; the next one tries again.
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
