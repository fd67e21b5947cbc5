package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterJobClient;

import java.lang.reflect.Field;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The REST address of the embedded cluster that runs a job: the one place that reaches into Flink's
 * internals.
 *
 * <p>An embedded run ({@code java -jar}, the tests) gets a {@link MiniClusterJobClient} from {@code
 * executeAsync}. Its {@link MiniCluster} knows its REST address ({@link
 * MiniCluster#getRestAddress()}, public), which has a random port, but Flink 2.2 offers no public
 * way from the job client to its cluster: {@code LocalExecutor} and {@code
 * PerJobMiniClusterFactory} create and keep it, and neither {@code JobClient} nor a {@code
 * JobListener} exposes it. So the client's private field is read. {@code
 * MiniClusterRestAddressITCase} fails if a Flink upgrade renames it; then this class is the only
 * one to change.
 */
@Internal
public final class MiniClusterRestAddress {

    private static final String FIELD = "miniCluster";

    private MiniClusterRestAddress() {}

    /**
     * The REST address of the running embedded cluster of {@code client}; empty for another client
     * (a cluster's) or once the embedded cluster is shut down.
     */
    public static Optional<URI> of(JobClient client, Duration timeout) throws Exception {
        if (!(client instanceof MiniClusterJobClient)) {
            return Optional.empty();
        }
        Field field = MiniClusterJobClient.class.getDeclaredField(FIELD);
        field.setAccessible(true);
        MiniCluster cluster = (MiniCluster) field.get(client);
        try {
            return cluster.isRunning()
                    ? Optional.of(
                            cluster.getRestAddress().get(timeout.toMillis(), TimeUnit.MILLISECONDS))
                    : Optional.empty();
        } catch (IllegalStateException shutDown) {
            return Optional.empty(); // it shut down between the two calls
        }
    }
}
