package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;

import javax.annotation.Nullable;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

/**
 * The one S3 listing loop: {@code ListObjectsV2} pages of 1,000 keys sent by the S3A file system's
 * own AWS client ({@link S3Clients}), for what S3A 3.3.4 has no API for or serves slowly: a folder
 * listed from a name on ({@code StartAfter}, {@link ListFrom}) and every file below a folder in one
 * flat listing, however many "folders" hold them (Flink's {@code listStatus} asks once per folder).
 * Folder markers (keys ending in {@code /}) are not files and are left out.
 */
@Internal
public final class S3Listing {

    /** Keys per ListObjectsV2 page (S3's maximum). */
    private static final int PAGE = 1000;

    private S3Listing() {}

    /**
     * The files of {@code folder}, or with {@code below} every file under it at any depth; with a
     * {@code fromName}, only those whose path relative to the folder sorts at or after it. In key
     * order; none when nothing is under the folder. Null when the folder's file system is not
     * flink-s3-fs-hadoop's S3A (then list through Flink's file system).
     */
    @Nullable
    public static List<FileEntry> files(Path folder, boolean below, @Nullable String fromName)
            throws IOException {
        Object client;
        try {
            client = S3Clients.clientOf(folder);
        } catch (IOException e) {
            return null; // not S3A: flink-s3-fs-presto, or another object store
        }
        String bucket = S3Clients.bucket(folder);
        String prefix = prefixOf(folder);
        // StartAfter is exclusive: start after the name's prefix one character shorter, which
        // sorts before the name, and drop what sorts between.
        String startAfter =
                fromName == null || fromName.isEmpty()
                        ? null
                        : prefix + fromName.substring(0, fromName.length() - 1);
        try {
            Requests requests = new Requests(client, folder);
            List<FileEntry> files = new ArrayList<>();
            String token = null;
            boolean truncated;
            do {
                Object request = requests.create(bucket, prefix, PAGE);
                if (!below) {
                    requests.set(request, "setDelimiter", "/");
                }
                if (token != null) {
                    requests.set(request, "setContinuationToken", token);
                } else if (startAfter != null) {
                    requests.set(request, "setStartAfter", startAfter);
                }
                Object result = requests.send(request);
                for (Object summary :
                        (List<?>)
                                result.getClass().getMethod("getObjectSummaries").invoke(result)) {
                    Class<?> type = summary.getClass();
                    String key = (String) type.getMethod("getKey").invoke(summary);
                    String name = key.substring(prefix.length());
                    if (name.isEmpty()
                            || name.endsWith("/")
                            || (fromName != null && name.compareTo(fromName) < 0)) {
                        continue;
                    }
                    long size = (long) type.getMethod("getSize").invoke(summary);
                    Date modified = (Date) type.getMethod("getLastModified").invoke(summary);
                    files.add(
                            new FileEntry(
                                    new Path(folder, name),
                                    size,
                                    modified == null ? 0 : modified.getTime()));
                }
                truncated = (boolean) result.getClass().getMethod("isTruncated").invoke(result);
                token =
                        (String)
                                result.getClass()
                                        .getMethod("getNextContinuationToken")
                                        .invoke(result);
            } while (truncated && token != null);
            return files;
        } catch (ReflectiveOperationException e) {
            throw new IOException(
                    "cannot list "
                            + folder
                            + ": the S3 file system is not flink-s3-fs-hadoop 2.2.0's S3A ("
                            + e
                            + ")",
                    e);
        }
    }

    /** Whether any object at all is under {@code folder} (one request for one key). */
    public static boolean anyObjectUnder(Path folder) throws IOException {
        Object client = S3Clients.clientOf(folder);
        String prefix = prefixOf(folder);
        try {
            Requests requests = new Requests(client, folder);
            Object result = requests.send(requests.create(S3Clients.bucket(folder), prefix, 1));
            return (int) result.getClass().getMethod("getKeyCount").invoke(result) > 0;
        } catch (ReflectiveOperationException e) {
            throw new IOException("cannot list " + folder + ": " + e, e);
        }
    }

    /** The key prefix of what is under {@code folder}: its key and a slash (none for a bucket). */
    private static String prefixOf(Path folder) {
        String key = S3Clients.key(folder);
        return key.isEmpty() || key.endsWith("/") ? key : key + "/";
    }

    /**
     * ListObjectsV2 requests to the S3A client of a folder, through reflection: the AWS SDK lives
     * in the S3 plugin's class loader, not in this one.
     */
    private static final class Requests {

        private final Object client;
        private final Path folder;
        private final Class<?> requestType;
        private final Method list;

        Requests(Object client, Path folder) throws ReflectiveOperationException {
            this.client = client;
            this.folder = folder;
            ClassLoader loader = client.getClass().getClassLoader();
            this.requestType =
                    Class.forName(
                            "com.amazonaws.services.s3.model.ListObjectsV2Request", true, loader);
            Class<?> clientType = Class.forName("com.amazonaws.services.s3.AmazonS3", true, loader);
            this.list = clientType.getMethod("listObjectsV2", requestType);
        }

        Object create(String bucket, String prefix, int maxKeys)
                throws ReflectiveOperationException {
            Object request = requestType.getConstructor().newInstance();
            set(request, "setBucketName", bucket);
            set(request, "setPrefix", prefix);
            requestType.getMethod("setMaxKeys", Integer.class).invoke(request, maxKeys);
            return request;
        }

        void set(Object request, String setter, String value) throws ReflectiveOperationException {
            requestType.getMethod(setter, String.class).invoke(request, value);
        }

        Object send(Object request) throws IOException, IllegalAccessException {
            try {
                return list.invoke(client, request);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof IOException) {
                    throw (IOException) e.getCause();
                }
                throw new IOException(
                        "cannot list " + folder + " (ListObjectsV2): " + e.getCause(),
                        e.getCause());
            }
        }
    }
}
