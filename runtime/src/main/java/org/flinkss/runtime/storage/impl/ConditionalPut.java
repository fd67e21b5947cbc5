package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.WrappingProxy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.UUID;
import java.util.WeakHashMap;

/**
 * Create-if-absent, the one write that must be atomic across machines (a Delta log entry, a lease).
 * See {@code Storage.createIfAbsent}.
 *
 * <p>S3: Hadoop's S3A 3.3.4, inside flink-s3-fs-hadoop 2.2.0, has no conditional create (it came
 * with Hadoop 3.4.2's {@code fs.s3a.create.conditional.enabled}), but its AWS SDK v1 client sends
 * any header a request carries. So this asks the S3A file system behind the Flink path for that
 * client ({@code S3AFileSystem.getAmazonS3ClientForTesting}, public API despite its name) and sends
 * {@code PutObject} with {@code If-None-Match: *}. Everything is reached by reflection: on a
 * cluster the S3 file system is a plugin with its own class loader, so its AWS classes are not the
 * job's.
 */
@Internal
public final class ConditionalPut {

    static final int PRECONDITION_FAILED = 412;

    /** Another conditional write to the same key was in flight; S3 says to retry. */
    static final int CONFLICT = 409;

    private static final int CONFLICT_RETRIES = 10;

    /** One client per S3A file system (asking for it logs a warning each time). */
    private static final Map<Object, Object> CLIENTS = new WeakHashMap<>();

    private ConditionalPut() {}

    public static boolean createIfAbsent(Path path, byte[] content) throws IOException {
        if (Locations.isLocal(path)) {
            return localDisk(Locations.localFile(path, "a file created if absent"), content);
        }
        if (Locations.isObjectStore(path)) {
            return s3(path, content);
        }
        throw new UnsupportedOperationException(
                "cannot create "
                        + path
                        + " only if absent: storage '"
                        + path.toUri().getScheme()
                        + "' has no atomic create-if-absent here (supported: local disk, s3://)");
    }

    /**
     * The content goes to a hidden temporary file beside the target, which is then hard-linked to
     * the target's name: {@code link(2)} fails with {@code EEXIST} atomically, unlike {@code
     * rename(2)}, which replaces an existing target; so this holds across threads and processes,
     * with no lock, and readers never see a part of the file.
     */
    static boolean localDisk(java.nio.file.Path file, byte[] content) throws IOException {
        Files.createDirectories(file.getParent());
        java.nio.file.Path temp =
                file.resolveSibling("." + file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (OutputStream out =
                    Files.newOutputStream(
                            temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                out.write(content);
            }
            try {
                Files.createLink(file, temp);
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            } catch (UnsupportedOperationException | FileSystemException e) {
                // A disk without hard links: O_EXCL creation is still atomic for the name, but a
                // reader could see the file while it is written (small files, one write call).
                try (OutputStream out =
                        Files.newOutputStream(
                                file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    out.write(content);
                    return true;
                } catch (FileAlreadyExistsException exists) {
                    return false;
                }
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static boolean s3(Path path, byte[] content) throws IOException {
        String bucket = path.toUri().getHost();
        String key = path.toUri().getPath().replaceFirst("^/+", "");
        if (bucket == null || key.isEmpty()) {
            throw new IOException("not an S3 object: " + path + " (s3://bucket/key)");
        }
        Object client = clientOf(path);
        ClassLoader loader = client.getClass().getClassLoader();
        try {
            Class<?> metadataType =
                    Class.forName("com.amazonaws.services.s3.model.ObjectMetadata", true, loader);
            Class<?> requestType =
                    Class.forName("com.amazonaws.services.s3.model.PutObjectRequest", true, loader);
            Class<?> clientType = Class.forName("com.amazonaws.services.s3.AmazonS3", true, loader);
            Method putObject = clientType.getMethod("putObject", requestType);
            for (int attempt = 1; ; attempt++) {
                Object metadata = metadataType.getConstructor().newInstance();
                metadataType
                        .getMethod("setContentLength", long.class)
                        .invoke(metadata, (long) content.length);
                Object request =
                        requestType
                                .getConstructor(
                                        String.class, String.class, InputStream.class, metadataType)
                                .newInstance(
                                        bucket, key, new ByteArrayInputStream(content), metadata);
                requestType
                        .getMethod("putCustomRequestHeader", String.class, String.class)
                        .invoke(request, "If-None-Match", "*");
                try {
                    putObject.invoke(client, request);
                    return true;
                } catch (InvocationTargetException e) {
                    int status = statusOf(e.getCause());
                    if (status == PRECONDITION_FAILED) {
                        return false;
                    }
                    if (status == CONFLICT && attempt < CONFLICT_RETRIES) {
                        sleep(20L * attempt);
                        continue;
                    }
                    throw new IOException(
                            "cannot create "
                                    + path
                                    + " if absent (PutObject with If-None-Match: *): "
                                    + e.getCause(),
                            e.getCause());
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IOException(
                    "cannot send a conditional PutObject for "
                            + path
                            + ": the S3 file system is not flink-s3-fs-hadoop 2.2.0's S3A ("
                            + e
                            + ")",
                    e);
        }
    }

    private static int statusOf(Throwable error) {
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
    private static Object clientOf(Path path) throws IOException {
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
                                            "flinkss: PutObject with If-None-Match: *, which S3A"
                                                    + " has no API for");
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

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while retrying a conditional PutObject", e);
        }
    }
}
