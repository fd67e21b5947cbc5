package org.flinkss.runtime.source.delta;

import org.apache.flink.core.fs.BlockLocation;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystemFactory;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.local.LocalFileSystem;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The local disk under the scheme {@value #SCHEME} ({@code recording:/tmp/...} is {@code
 * file:/tmp/...}), for tests that must know what a reader touched: every call is recorded as {@code
 * "<operation> <local path>"} ({@code list}, {@code status}, {@code open}, {@code create}, ...).
 * Registered with Flink's {@link FileSystem} through {@code META-INF/services}, so every code path
 * that resolves a path with {@code Path#getFileSystem} (Storage, Delta Kernel's engine on {@code
 * FlinkFileIO}) goes through it, as it goes through any other file system.
 */
public final class RecordingFileSystem extends FileSystem {

    public static final String SCHEME = "recording";

    private static final List<String> CALLS = new CopyOnWriteArrayList<>();

    private static final LocalFileSystem LOCAL = LocalFileSystem.getSharedInstance();

    /** {@code recording:<path>} for a local folder or file. */
    public static String uri(java.nio.file.Path local) {
        return SCHEME + ":" + local.toAbsolutePath().normalize();
    }

    /** The calls recorded since the last {@link #clear}, in order. */
    public static List<String> calls() {
        return List.copyOf(CALLS);
    }

    public static void clear() {
        CALLS.clear();
    }

    private static Path local(Path p) {
        return new Path("file", null, p.toUri().getPath());
    }

    private static Path recording(Path p) {
        return new Path(SCHEME, null, p.toUri().getPath());
    }

    private static Path record(String operation, Path p) {
        CALLS.add(operation + " " + p.toUri().getPath());
        return local(p);
    }

    @Override
    public Path getWorkingDirectory() {
        return recording(LOCAL.getWorkingDirectory());
    }

    @Override
    public Path getHomeDirectory() {
        return recording(LOCAL.getHomeDirectory());
    }

    @Override
    public URI getUri() {
        return URI.create(SCHEME + ":///");
    }

    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
        return new Status(LOCAL.getFileStatus(record("status", f)));
    }

    @Override
    public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len)
            throws IOException {
        return LOCAL.getFileBlockLocations(LOCAL.getFileStatus(local(file.getPath())), start, len);
    }

    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
        return LOCAL.open(record("open", f), bufferSize);
    }

    @Override
    public FSDataInputStream open(Path f) throws IOException {
        return LOCAL.open(record("open", f));
    }

    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
        FileStatus[] listed = LOCAL.listStatus(record("list", f));
        if (listed == null) {
            return null;
        }
        FileStatus[] wrapped = new FileStatus[listed.length];
        for (int i = 0; i < listed.length; i++) {
            wrapped[i] = new Status(listed[i]);
        }
        return wrapped;
    }

    @Override
    public boolean delete(Path f, boolean recursive) throws IOException {
        return LOCAL.delete(record("delete", f), recursive);
    }

    @Override
    public boolean mkdirs(Path f) throws IOException {
        return LOCAL.mkdirs(record("mkdirs", f));
    }

    @Override
    public FSDataOutputStream create(Path f, WriteMode overwriteMode) throws IOException {
        return LOCAL.create(record("create", f), overwriteMode);
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        return LOCAL.rename(record("rename", src), local(dst));
    }

    @Override
    public boolean isDistributedFS() {
        return false;
    }

    /** A local file's status under this scheme's name. */
    private record Status(FileStatus local) implements FileStatus {
        @Override
        public long getLen() {
            return local.getLen();
        }

        @Override
        public long getBlockSize() {
            return local.getBlockSize();
        }

        @Override
        public short getReplication() {
            return local.getReplication();
        }

        @Override
        public long getModificationTime() {
            return local.getModificationTime();
        }

        @Override
        public long getAccessTime() {
            return local.getAccessTime();
        }

        @Override
        public boolean isDir() {
            return local.isDir();
        }

        @Override
        public Path getPath() {
            return recording(local.getPath());
        }
    }

    /** Found by Flink's {@code FileSystem} through {@code META-INF/services}. */
    public static final class Factory implements FileSystemFactory {
        @Override
        public String getScheme() {
            return SCHEME;
        }

        @Override
        public FileSystem create(URI fsUri) {
            return new RecordingFileSystem();
        }
    }
}
