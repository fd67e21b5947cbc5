package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import javax.annotation.Nullable;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * Every file below a folder of an object store with one flat listing: Hadoop's {@code
 * FileSystem.listFiles(path, true)}, which S3A serves with {@code ListObjectsV2} and no delimiter,
 * 1,000 keys a request whatever the number of "folders" (Flink's {@code listStatus} lists one
 * folder at a time: a request per folder, 10,000 for land-events' 10,000 batch folders). Reached by
 * reflection, as {@link S3Clients} reaches the S3A client: the S3 file system is a plugin with its
 * own class loader.
 */
@Internal
public final class FlatListing {

    private FlatListing() {}

    /**
     * The files below {@code folder} at any depth, in no particular order (none if it does not
     * exist); null if its file system is not Hadoop's (then list folder by folder).
     */
    @Nullable
    public static List<FileStatus> filesBelow(Path folder) throws IOException {
        Object hadoop;
        try {
            hadoop = S3Clients.hadoopFileSystem(folder.getFileSystem(), folder);
        } catch (IOException e) {
            return null; // not Hadoop's file system
        }
        ClassLoader loader = hadoop.getClass().getClassLoader();
        Object files;
        Method hasNext;
        Method next;
        Method path;
        Method length;
        Method modified;
        try {
            Class<?> pathType = Class.forName("org.apache.hadoop.fs.Path", false, loader);
            Class<?> fsType = Class.forName("org.apache.hadoop.fs.FileSystem", false, loader);
            Class<?> iteratorType =
                    Class.forName("org.apache.hadoop.fs.RemoteIterator", false, loader);
            Class<?> statusType = Class.forName("org.apache.hadoop.fs.FileStatus", false, loader);
            hasNext = iteratorType.getMethod("hasNext");
            next = iteratorType.getMethod("next");
            path = statusType.getMethod("getPath");
            length = statusType.getMethod("getLen");
            modified = statusType.getMethod("getModificationTime");
            Object hadoopFolder = pathType.getConstructor(URI.class).newInstance(folder.toUri());
            files =
                    call(
                            fsType.getMethod("listFiles", pathType, boolean.class),
                            hadoop,
                            folder,
                            hadoopFolder,
                            true);
        } catch (FileNotFoundException e) {
            return List.of();
        } catch (ReflectiveOperationException e) {
            return null; // a Hadoop without listFiles: list folder by folder
        }
        List<FileStatus> found = new ArrayList<>();
        while ((boolean) call(hasNext, files, folder)) {
            Object status = call(next, files, folder);
            URI uri = (URI) call(pathType(path), call(path, status, folder), folder);
            found.add(
                    new Listed(
                            new Path(uri),
                            (long) call(length, status, folder),
                            (long) call(modified, status, folder)));
        }
        return found;
    }

    private static Method pathType(Method getPath) throws IOException {
        try {
            return getPath.getReturnType().getMethod("toUri");
        } catch (NoSuchMethodException e) {
            throw new IOException("Hadoop's Path has no toUri", e);
        }
    }

    private static Object call(Method method, Object target, Path folder, Object... args)
            throws IOException {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IOException) {
                throw (IOException) e.getCause();
            }
            throw new IOException("cannot list " + folder + ": " + e.getCause(), e.getCause());
        } catch (IllegalAccessException e) {
            throw new IOException("cannot list " + folder + ": " + e, e);
        }
    }

    /** A file the flat listing found. */
    private record Listed(Path path, long length, long modified) implements FileStatus {
        @Override
        public long getLen() {
            return length;
        }

        @Override
        public long getBlockSize() {
            return length;
        }

        @Override
        public short getReplication() {
            return 1;
        }

        @Override
        public long getModificationTime() {
            return modified;
        }

        @Override
        public long getAccessTime() {
            return 0;
        }

        @Override
        public boolean isDir() {
            return false;
        }

        @Override
        public Path getPath() {
            return path;
        }
    }
}
