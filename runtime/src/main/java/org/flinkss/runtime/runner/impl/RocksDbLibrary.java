package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;

import org.rocksdb.NativeLibraryLoader;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.storage.impl.NestedJarCache;

import java.lang.reflect.Field;
import java.net.URL;
import java.nio.file.Path;

/**
 * RocksDB's native library, loaded from a copy kept between runs ({@link NestedJarCache}) before an
 * embedded run's first stateful task needs it. Flink's RocksDB backend has RocksDB's {@link
 * NativeLibraryLoader} extract the 13.6 MB library from the jar into the run's temporary folder at
 * every run, 0.35-0.6 s on the critical path of every stateful query (measured alone; 0.63 s in a
 * {@code run win5}'s log). Here the kept copy is loaded and the loader marked as loaded (its
 * private {@code initialized} flag, under the lock its own {@code loadLibrary} takes), so that
 * Flink's later call returns at once. When anything here fails, nothing is marked and Flink's call
 * extracts the library as before.
 */
@Internal
public final class RocksDbLibrary {

    private static final Logger LOG = LoggerFactory.getLogger(RocksDbLibrary.class);

    private RocksDbLibrary() {}

    /** Loads the library in a daemon thread, so that the embedded cluster starts meanwhile. */
    public static void preloadInBackground() {
        Thread loader = new Thread(RocksDbLibrary::preload, "flinkss-rocksdb-library");
        loader.setDaemon(true);
        loader.start();
    }

    /** Loads the library from its kept copy unless it is loaded already; true if it now is. */
    public static boolean preload() {
        NativeLibraryLoader loader = NativeLibraryLoader.getInstance();
        synchronized (loader) {
            try {
                Field initialized = NativeLibraryLoader.class.getDeclaredField("initialized");
                initialized.setAccessible(true);
                if (initialized.getBoolean(null)) {
                    return true;
                }
                String file = Environment.getJniLibraryFileName("rocksdb");
                URL nested = NativeLibraryLoader.class.getClassLoader().getResource(file);
                if (nested == null) {
                    LOG.info("No {} in the jar: Flink loads RocksDB as it does", file);
                    return false;
                }
                // A native library loads from a file on this machine, hence java.nio.
                Path copy = NestedJarCache.inTemporaryFolder().copyOf(nested, "rocksdbjni");
                System.load(copy.toString());
                initialized.setBoolean(null, true);
                return true;
            } catch (Exception | LinkageError e) {
                LOG.info(
                        "RocksDB's library not loaded from a kept copy, Flink extracts it: {}",
                        e.toString());
                return false;
            }
        }
    }
}
