package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.classloading.SubmoduleClassLoader;
import org.apache.flink.runtime.rpc.CleanupOnCloseRpcSystem;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.runtime.rpc.RpcSystemLoader;
import org.apache.flink.runtime.rpc.exceptions.RpcLoaderException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.storage.impl.NestedJarCache;

import java.net.URL;
import java.nio.file.Path;
import java.util.ServiceLoader;

/**
 * Flink's Pekko RPC system, as Flink's own {@code PekkoRpcSystemLoader} loads it (in a class loader
 * of its own, from the {@code flink-rpc-akka.jar} nested in {@code flink-rpc-akka-loader}), but
 * from a copy kept between runs ({@link NestedJarCache}) instead of one extracted into the run's
 * temporary folder each time: 21 MB inflated and written, about 0.19 s of every embedded run's
 * start. Tried before Flink's loader (priority -1 against 0); when the copy cannot be used (the
 * reason is logged at INFO) Flink's loader takes over, as before. Only the embedded runs use it:
 * the cluster jar leaves its service entry out, so a cluster loads its RPC system as it always
 * does. Each RPC system it loads is tracked until its cluster closes it ({@link
 * EmbeddedRpcSystems}), so that the process can wait for that before it exits.
 */
@Internal
public final class CachedPekkoRpcSystemLoader implements RpcSystemLoader {

    private static final Logger LOG = LoggerFactory.getLogger(CachedPekkoRpcSystemLoader.class);

    static final String RPC_JAR = "flink-rpc-akka";

    @Override
    public int getLoadPriority() {
        return -1;
    }

    @Override
    public RpcSystem loadRpcSystem(Configuration config) {
        ClassLoader flink = RpcSystem.class.getClassLoader();
        URL nested = flink.getResource(RPC_JAR + ".jar");
        if (nested == null) {
            throw new RpcLoaderException(RPC_JAR + ".jar is not on the class path");
        }
        try {
            // A jar for a class loader: a file on this machine, hence java.nio.
            Path copy = NestedJarCache.inTemporaryFolder().copyOf(nested, RPC_JAR);
            SubmoduleClassLoader loader =
                    new SubmoduleClassLoader(new URL[] {copy.toUri().toURL()}, flink);
            RpcSystem pekko = ServiceLoader.load(RpcSystem.class, loader).iterator().next();
            return EmbeddedRpcSystems.track(new CleanupOnCloseRpcSystem(pekko, loader, null));
        } catch (Exception e) {
            LOG.info(
                    "No kept copy of {}.jar, Flink extracts it for this run: {}",
                    RPC_JAR,
                    e.toString());
            throw new RpcLoaderException("no kept copy of " + RPC_JAR + ".jar: " + e, e);
        }
    }
}
