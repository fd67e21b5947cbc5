package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

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

    private ConditionalPut() {}

    public static boolean createIfAbsent(Path path, byte[] content) throws IOException {
        if (Locations.isLocal(path)) {
            return LocalDisk.createIfAbsent(
                    Locations.localFile(path, "a file created if absent").toPath(), content);
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

    private static boolean s3(Path path, byte[] content) throws IOException {
        String bucket = S3Clients.bucket(path);
        String key = S3Clients.key(path);
        if (key.isEmpty()) {
            throw new IOException("not an S3 object: " + path + " (s3://bucket/key)");
        }
        Object client = S3Clients.clientOf(path);
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
                    int status = S3Clients.statusOf(e.getCause());
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

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while retrying a conditional PutObject", e);
        }
    }
}
