package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RunFence;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The client's sign of life for its job: {@code runs/<run>/heartbeat}, rewritten every {@link
 * #INTERVAL} while the run lasts, from a thread of its own. A job that sees it unchanged for its
 * client timeout stops itself ({@link RunFence}).
 */
@Internal
public final class ClientHeartbeat implements AutoCloseable {

    public static final Duration INTERVAL = Duration.ofSeconds(2);

    private final Path file;
    private final ScheduledExecutorService thread;
    private long beats;

    private ClientHeartbeat(Path file) {
        this.file = file;
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
        ClientHeartbeat heartbeat = new ClientHeartbeat(layout.heartbeat(runId));
        heartbeat.beat();
        heartbeat.thread.scheduleAtFixedRate(
                heartbeat::beat, INTERVAL.toMillis(), INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        return heartbeat;
    }

    private synchronized void beat() {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(".heartbeat.tmp");
            Files.writeString(
                    tmp,
                    ++beats + " " + Instant.now() + " pid " + ProcessHandle.current().pid() + "\n",
                    StandardCharsets.UTF_8);
            Files.move(
                    tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            // Missed beats are what the job watches for; the next one tries again.
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
