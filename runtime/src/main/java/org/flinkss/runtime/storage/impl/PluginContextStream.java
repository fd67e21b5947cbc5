package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.util.TemporaryClassLoaderContext;
import org.apache.flink.util.WrappingProxy;

import java.io.IOException;

/**
 * An output stream of a plugin's file system (S3) whose every call runs with the plugin's class
 * loader as the thread's context class loader, as Flink's own wrapper does for the file system's
 * calls but not for its streams. S3A uploads a file from a thread pool whose threads are made by
 * the first writer that needs one and inherit that writer's context class loader: without this, a
 * task thread's would be kept, the job's user-code class loader, and once that job ends a later
 * job's upload in the same JVM or TaskManager fails with "Trying to access closed classloader".
 */
@Internal
public final class PluginContextStream extends FSDataOutputStream {

    private final FSDataOutputStream out;
    private final ClassLoader loader;

    private PluginContextStream(FSDataOutputStream out, ClassLoader loader) {
        this.out = out;
        this.loader = loader;
    }

    /**
     * {@code out}, created by {@code fs}, wrapped when {@code fs} is a plugin's (its classes are
     * not this class's loader's); else {@code out} itself.
     */
    public static FSDataOutputStream of(FileSystem fs, FSDataOutputStream out) {
        ClassLoader loader = loaderOf(fs);
        return loader == null || loader == PluginContextStream.class.getClassLoader()
                ? out
                : new PluginContextStream(out, loader);
    }

    /** The class loader of the file system inside Flink's wrappers (the plugin's, for S3). */
    public static ClassLoader loaderOf(FileSystem fs) {
        Object current = fs;
        for (int depth = 0; depth < 5 && current instanceof WrappingProxy; depth++) {
            Object inner = ((WrappingProxy<?>) current).getWrappedDelegate();
            if (inner == null || inner == current) {
                break;
            }
            current = inner;
        }
        return current.getClass().getClassLoader();
    }

    @Override
    public long getPos() throws IOException {
        try (TemporaryClassLoaderContext ignored = TemporaryClassLoaderContext.of(loader)) {
            return out.getPos();
        }
    }

    @Override
    public void write(int b) throws IOException {
        try (TemporaryClassLoaderContext ignored = TemporaryClassLoaderContext.of(loader)) {
            out.write(b);
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        try (TemporaryClassLoaderContext ignored = TemporaryClassLoaderContext.of(loader)) {
            out.write(b, off, len);
        }
    }

    @Override
    public void flush() throws IOException {
        try (TemporaryClassLoaderContext ignored = TemporaryClassLoaderContext.of(loader)) {
            out.flush();
        }
    }

    @Override
    public void sync() throws IOException {
        try (TemporaryClassLoaderContext ignored = TemporaryClassLoaderContext.of(loader)) {
            out.sync();
        }
    }

    @Override
    public void close() throws IOException {
        try (TemporaryClassLoaderContext ignored = TemporaryClassLoaderContext.of(loader)) {
            out.close();
        }
    }
}
