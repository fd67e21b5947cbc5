package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rpc.AddressResolution;
import org.apache.flink.runtime.rpc.RpcSystem;

import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The RPC systems that {@link CachedPekkoRpcSystemLoader} loaded for this JVM's embedded clusters,
 * each until its cluster closes it: the last step of a MiniCluster's shutdown, after its Pekko
 * actor systems have terminated.
 *
 * <p>Why it matters: Flink's job client shuts an embedded cluster down when the job ends, in the
 * background; a process that exits meanwhile starts the JVM's shutdown hooks while that shutdown
 * still runs. Pekko's own hook ({@code flink-shutdown-hook-1}, which an actor system registers when
 * its termination begins, for Pekko's coordinated shutdown, and removes when it has terminated)
 * then runs the coordinated shutdown and loads classes from the RPC system's class loader, which
 * the cluster's shutdown closes at the same moment: {@code NoClassDefFoundError:
 * org/apache/pekko/actor/CoordinatedShutdown$JvmExitReason$} (or {@code
 * scala/collection/mutable/Set$}) after a successful run, in about one run in twenty. Waiting here
 * before exiting ({@link #awaitAllClosed}) leaves the hooks nothing to do: the actor systems have
 * terminated, which removed Pekko's hooks, before the class loader was closed.
 */
@Internal
public final class EmbeddedRpcSystems {

    private static final Set<Tracked> OPEN = ConcurrentHashMap.newKeySet();

    private EmbeddedRpcSystems() {}

    /** {@code rpc}, remembered as open until it is closed. */
    static RpcSystem track(RpcSystem rpc) {
        Tracked tracked = new Tracked(rpc);
        OPEN.add(tracked);
        return tracked;
    }

    /** How many are open now. */
    static int open() {
        return OPEN.size();
    }

    /**
     * Waits until every RPC system loaded so far is closed, at most {@code timeout}.
     *
     * @return whether they all are
     */
    public static boolean awaitAllClosed(Duration timeout) throws InterruptedException {
        CompletableFuture<?>[] closing =
                OPEN.stream().map(t -> t.closed).toArray(CompletableFuture<?>[]::new);
        try {
            CompletableFuture.allOf(closing).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true; // a close that failed is over too
        }
    }

    /** An RPC system that tells when it is closed. */
    private static final class Tracked implements RpcSystem {

        private final RpcSystem rpc;
        private final CompletableFuture<Void> closed = new CompletableFuture<>();

        Tracked(RpcSystem rpc) {
            this.rpc = rpc;
        }

        @Override
        public RpcServiceBuilder localServiceBuilder(Configuration config) {
            return rpc.localServiceBuilder(config);
        }

        @Override
        public RpcServiceBuilder remoteServiceBuilder(
                Configuration config, String externalAddress, String externalPortRange) {
            return rpc.remoteServiceBuilder(config, externalAddress, externalPortRange);
        }

        @Override
        public String getRpcUrl(
                String hostname,
                int port,
                String endpointName,
                AddressResolution addressResolution,
                Configuration config)
                throws UnknownHostException {
            return rpc.getRpcUrl(hostname, port, endpointName, addressResolution, config);
        }

        @Override
        public InetSocketAddress getInetSocketAddressFromRpcUrl(String url) throws Exception {
            return rpc.getInetSocketAddressFromRpcUrl(url);
        }

        @Override
        public long getMaximumMessageSizeInBytes(Configuration config) {
            return rpc.getMaximumMessageSizeInBytes(config);
        }

        @Override
        public void close() {
            try {
                rpc.close();
            } finally {
                OPEN.remove(this);
                closed.complete(null);
            }
        }
    }
}
