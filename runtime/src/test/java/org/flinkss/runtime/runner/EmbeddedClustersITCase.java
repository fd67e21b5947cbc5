package org.flinkss.runtime.runner;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cause of the {@code NoClassDefFoundError: org/apache/pekko/actor/CoordinatedShutdown$
 * JvmExitReason$} that a {@code java -jar} run printed at exit after it succeeded, about one run in
 * twenty: Flink shuts an embedded cluster down in the background when its job ends, its actor
 * systems register Pekko's JVM shutdown hooks for the time of their termination, and an exit during
 * that shutdown ran the hooks while the shutdown closed the class loader they load from. Once
 * {@link EmbeddedClusters#awaitShutdown} has returned, no such hook is left for the exit to run. A
 * MiniCluster of its own (not the extension's), started and shut down as Flink's local executor
 * does it.
 */
class EmbeddedClustersITCase {

    @Test
    void aClusterShutDownInTheBackgroundLeavesNoPekkoHookOnceAwaited() throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(conf)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(1)
                                .build());
        cluster.start();

        // Step 1: while the cluster runs, it is not shut down (and Pekko has no hook yet: an actor
        // system registers its hook for the JVM's exit when its termination begins, and removes
        // it when it has terminated).
        assertThat(EmbeddedClusters.awaitShutdown(Duration.ofMillis(200))).isFalse();

        // Step 2: shut down in the background, as Flink's job client does when the job ends.
        cluster.closeAsync();

        // Step 3: once awaited, the actor systems have terminated and removed their hooks, before
        // their class loader was closed: an exit now runs none of Pekko's code.
        assertThat(EmbeddedClusters.awaitShutdown(Duration.ofMinutes(1))).isTrue();
        assertThat(cluster.isRunning()).isFalse();
        assertThat(pekkoShutdownHooks()).isEmpty();
    }

    /** The names of the JVM shutdown hooks registered by Pekko actor systems. */
    private static List<String> pekkoShutdownHooks() throws ReflectiveOperationException {
        Class<?> hooks = Class.forName("java.lang.ApplicationShutdownHooks");
        Field field = hooks.getDeclaredField("hooks");
        field.setAccessible(true); // failsafe opens java.lang (the root pom's argLine)
        synchronized (hooks) {
            Map<?, ?> registered = (Map<?, ?>) field.get(null);
            return registered.keySet().stream()
                    .map(t -> ((Thread) t).getName())
                    .filter(n -> n.matches(".*-shutdown-hook-\\d+"))
                    .toList();
        }
    }
}
