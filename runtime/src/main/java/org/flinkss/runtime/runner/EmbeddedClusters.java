package org.flinkss.runtime.runner;

import org.flinkss.runtime.runner.impl.EmbeddedRpcSystems;

import java.time.Duration;

/**
 * The embedded Flink clusters of a {@code java -jar} process ({@link QueryRun}'s, and those Flink's
 * local environment starts for the generator's and recompute's jobs). Flink shuts each down when
 * its job ends, in the background: a process must wait for that before it exits, or the JVM's
 * shutdown hooks race the shutdown (Pekko's hook then fails to load its classes from the RPC class
 * loader the shutdown has just closed, and prints a {@code NoClassDefFoundError} after a run that
 * succeeded).
 */
public final class EmbeddedClusters {

    private EmbeddedClusters() {}

    /**
     * Waits until every embedded cluster this process started has shut down, at most {@code
     * timeout}.
     *
     * @return whether they all have
     */
    public static boolean awaitShutdown(Duration timeout) throws InterruptedException {
        return EmbeddedRpcSystems.awaitAllClosed(timeout);
    }
}
