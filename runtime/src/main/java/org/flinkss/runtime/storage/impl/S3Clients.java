package org.flinkss.runtime.storage.impl;

import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.WrappingProxy;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The AWS SDK client inside the S3A file system that serves a Flink path, for the requests S3A
 * 3.3.4 (inside flink-s3-fs-hadoop 2.2.0) has no API for ({@link ConditionalPut}, {@link
 * ListFrom}). Reached by reflection: on a cluster the S3 file system is a plugin with its own class
 * loader, so its AWS classes are not the job's. Same endpoint, credentials and retries as every
 * other request of that file system.
 */
final class S3Clients {

    /** One client per S3A file system (asking for it logs a warning each time). */
    private static final Map<Object, Object> CLIENTS = new WeakHashMap<>();

    private S3Clients() {}

    /** The bucket of {@code s3://bucket/key}. */
    static String bucket(Path path) throws IOException {
        String bucket = path.toUri().getHost();
        if (bucket == null) {
            throw new IOException("not an S3 location: " + path + " (s3://bucket/key)");
        }
        return bucket;
    }

    /** The key of {@code s3://bucket/key}, without a leading slash. */
    static String key(Path path) {
        return path.toUri().getPath().replaceFirst("^/+", "");
    }

    /** The HTTP status of an AWS SDK exception, -1 for anything else. */
    static int statusOf(Throwable error) {
        if (error == null) {
            return -1;
        }
        try {
            Method status = error.getClass().getMethod("getStatusCode");
            return (int) status.invoke(error);
        } catch (ReflectiveOperationException | ClassCastException e) {
            return -1;
        }
    }

    /** The AWS client of the S3A file system that serves {@code path}. */
    static Object clientOf(Path path) throws IOException {
        Object hadoop = hadoopFileSystem(path.getFileSystem(), path);
        synchronized (CLIENTS) {
            Object client = CLIENTS.get(hadoop);
            if (client == null) {
                try {
                    client =
                            hadoop.getClass()
                                    .getMethod("getAmazonS3ClientForTesting", String.class)
                                    .invoke(
                                            hadoop,
                                            "flinkss: requests S3A has no API for (a conditional"
                                                    + " PutObject, a listing from a key on)");
                } catch (ReflectiveOperationException e) {
                    throw new IOException(
                            "the file system of "
                                    + path
                                    + " is not Hadoop's S3A (flink-s3-fs-hadoop): cannot send a"
                                    + " conditional PutObject ("
                                    + e
                                    + ")",
                            e);
                }
                CLIENTS.put(hadoop, client);
            }
            return client;
        }
    }

    /** The Hadoop file system inside Flink's wrappers of the S3 file system. */
    static Object hadoopFileSystem(FileSystem fs, Path path) throws IOException {
        Object current = fs;
        for (int depth = 0; depth < 5; depth++) {
            try {
                Method hadoop = current.getClass().getMethod("getHadoopFileSystem");
                return hadoop.invoke(current);
            } catch (NoSuchMethodException e) {
                // a wrapper: look inside
            } catch (ReflectiveOperationException e) {
                throw new IOException("cannot reach the S3A file system of " + path, e);
            }
            Object inner = unwrap(current);
            if (inner == null || inner == current) {
                break;
            }
            current = inner;
        }
        throw new IOException(
                "the file system of "
                        + path
                        + " ("
                        + fs.getClass().getName()
                        + ") is not flink-s3-fs-hadoop's: conditional puts need its S3A client."
                        + " Use the S3 plugin flink-s3-fs-hadoop (s3:// or s3a://), not"
                        + " flink-s3-fs-presto (s3p://)");
    }

    private static Object unwrap(Object fs) {
        // Flink's wrappers (the plugin's class loader fixer, the safety net) are WrappingProxies.
        return fs instanceof WrappingProxy ? ((WrappingProxy<?>) fs).getWrappedDelegate() : null;
    }
}
