package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;

/**
 * The files of a folder whose names sort at or after a given name, in name order: how a Delta log
 * is read ({@code _delta_log/} holds two files per version, and a reader needs only those from its
 * last checkpoint on). See {@code Storage.listFrom}.
 *
 * <p>S3 lists keys in order and can start after a key ({@code ListObjectsV2}'s {@code StartAfter}),
 * so a 10,000-version log costs one request for its last few entries, not twenty pages of 1,000;
 * S3A 3.3.4 has no API for it, so the S3A file system's own client sends it ({@link S3Clients}). A
 * local folder cannot be listed from a name: its names are read (no status per file) and only the
 * files at or after the name get their status read. Other storage: Flink's listing, filtered.
 */
@Internal
public final class ListFrom {

    /** A file found: its path, size and modification time. */
    public record Entry(Path path, long length, long modificationTime) {
        String name() {
            return path.getName();
        }
    }

    /** Keys per ListObjectsV2 page (S3's maximum). */
    private static final int PAGE = 1000;

    private ListFrom() {}

    /**
     * @throws FileNotFoundException when the folder does not exist (on S3: no object under it)
     */
    public static List<Entry> files(Path folder, String fromName) throws IOException {
        List<Entry> files;
        if (Locations.isLocal(folder)) {
            files = localDisk(folder, fromName);
        } else if (Locations.isObjectStore(folder)) {
            files = s3(folder, fromName);
        } else {
            files = flinkListing(folder, fromName);
        }
        files.sort(Comparator.comparing(Entry::name));
        return files;
    }

    private static List<Entry> localDisk(Path folder, String fromName) throws IOException {
        File dir = Locations.localFile(folder, "a folder listed").toFile();
        String[] names = dir.list();
        if (names == null) {
            throw new FileNotFoundException("no folder " + folder);
        }
        List<Entry> files = new ArrayList<>();
        for (String name : names) {
            if (name.compareTo(fromName) < 0) {
                continue;
            }
            BasicFileAttributes attributes;
            try {
                attributes =
                        Files.readAttributes(dir.toPath().resolve(name), BasicFileAttributes.class);
            } catch (NoSuchFileException e) {
                // Deleted since the names were read: another writer's temporary file.
                continue;
            }
            if (attributes.isRegularFile()) {
                files.add(
                        new Entry(
                                new Path(folder, name),
                                attributes.size(),
                                attributes.lastModifiedTime().toMillis()));
            }
        }
        return files;
    }

    private static List<Entry> flinkListing(Path folder, String fromName) throws IOException {
        FileStatus[] statuses = folder.getFileSystem().listStatus(folder);
        if (statuses == null) {
            throw new FileNotFoundException("no folder " + folder);
        }
        List<Entry> files = new ArrayList<>();
        for (FileStatus s : statuses) {
            if (!s.isDir() && s.getPath().getName().compareTo(fromName) >= 0) {
                files.add(new Entry(s.getPath(), s.getLen(), s.getModificationTime()));
            }
        }
        return files;
    }

    private static List<Entry> s3(Path folder, String fromName) throws IOException {
        String bucket = S3Clients.bucket(folder);
        String prefix = S3Clients.key(folder);
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            prefix += "/";
        }
        // StartAfter is exclusive: start after the name's prefix one character shorter, which
        // sorts before the name, and drop what sorts between.
        String startAfter =
                fromName.isEmpty() ? null : prefix + fromName.substring(0, fromName.length() - 1);
        Object client = S3Clients.clientOf(folder);
        ClassLoader loader = client.getClass().getClassLoader();
        try {
            Class<?> requestType =
                    Class.forName(
                            "com.amazonaws.services.s3.model.ListObjectsV2Request", true, loader);
            Class<?> clientType = Class.forName("com.amazonaws.services.s3.AmazonS3", true, loader);
            Method list = clientType.getMethod("listObjectsV2", requestType);
            List<Entry> files = new ArrayList<>();
            String token = null;
            boolean truncated;
            do {
                Object request = requestType.getConstructor().newInstance();
                requestType.getMethod("setBucketName", String.class).invoke(request, bucket);
                requestType.getMethod("setPrefix", String.class).invoke(request, prefix);
                requestType.getMethod("setDelimiter", String.class).invoke(request, "/");
                requestType.getMethod("setMaxKeys", Integer.class).invoke(request, PAGE);
                if (token != null) {
                    requestType
                            .getMethod("setContinuationToken", String.class)
                            .invoke(request, token);
                } else if (startAfter != null) {
                    requestType
                            .getMethod("setStartAfter", String.class)
                            .invoke(request, startAfter);
                }
                Object result = invoke(list, client, request, folder);
                for (Object summary :
                        (List<?>)
                                result.getClass().getMethod("getObjectSummaries").invoke(result)) {
                    Class<?> type = summary.getClass();
                    String key = (String) type.getMethod("getKey").invoke(summary);
                    String name = key.substring(prefix.length());
                    if (name.isEmpty() || name.compareTo(fromName) < 0) {
                        continue;
                    }
                    long size = (long) type.getMethod("getSize").invoke(summary);
                    Date modified = (Date) type.getMethod("getLastModified").invoke(summary);
                    files.add(
                            new Entry(
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
            if (files.isEmpty()
                    && !hasAnyObject(list, requestType, client, bucket, prefix, folder)) {
                throw new FileNotFoundException("no folder " + folder + " (no object under it)");
            }
            return files;
        } catch (ReflectiveOperationException e) {
            throw new IOException(
                    "cannot list "
                            + folder
                            + " from '"
                            + fromName
                            + "': the S3 file system is not flink-s3-fs-hadoop 2.2.0's S3A ("
                            + e
                            + ")",
                    e);
        }
    }

    private static boolean hasAnyObject(
            Method list,
            Class<?> requestType,
            Object client,
            String bucket,
            String prefix,
            Path folder)
            throws ReflectiveOperationException, IOException {
        Object request = requestType.getConstructor().newInstance();
        requestType.getMethod("setBucketName", String.class).invoke(request, bucket);
        requestType.getMethod("setPrefix", String.class).invoke(request, prefix);
        requestType.getMethod("setMaxKeys", Integer.class).invoke(request, 1);
        Object result = invoke(list, client, request, folder);
        return (int) result.getClass().getMethod("getKeyCount").invoke(result) > 0;
    }

    private static Object invoke(Method list, Object client, Object request, Path folder)
            throws IOException, IllegalAccessException {
        try {
            return list.invoke(client, request);
        } catch (InvocationTargetException e) {
            throw new IOException(
                    "cannot list " + folder + " (ListObjectsV2): " + e.getCause(), e.getCause());
        }
    }
}
