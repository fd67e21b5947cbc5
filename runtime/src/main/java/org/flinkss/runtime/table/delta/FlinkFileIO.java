package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.storage.ListedFile;
import org.flinkss.runtime.storage.Storage;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * Delta Kernel's file access ({@link FileIO}) on Flink's {@link FileSystem}: every scheme Flink has
 * a file system for ({@code file:}, {@code s3:} through flink-s3-fs-hadoop, ...) is a place for a
 * Delta table. The one operation Flink's API lacks, creating a log entry only if it is absent, is
 * handed to the {@link PutIfAbsent} of the path's scheme.
 */
final class FlinkFileIO implements FileIO {

    private static final Logger LOG = LoggerFactory.getLogger(FlinkFileIO.class);

    /** How often a log listing that cannot be whole is taken (see {@link #incomplete}). */
    private static final int LISTING_ATTEMPTS = 6;

    /** {@code 00000000000000000007.json}: twenty digits and the suffix. */
    private static final int COMMIT_NAME_LENGTH = 25;

    private final Function<String, PutIfAbsent> putIfAbsent;
    private final Map<String, String> conf;

    public FlinkFileIO(
            Function<String, PutIfAbsent> putIfAbsentByScheme, Map<String, String> conf) {
        this.putIfAbsent = putIfAbsentByScheme;
        this.conf = Map.copyOf(conf);
    }

    private static FileSystem fs(Path path) throws IOException {
        return path.getFileSystem();
    }

    private static String scheme(Path path) throws IOException {
        String scheme = path.toUri().getScheme();
        return scheme != null ? scheme : fs(path).getUri().getScheme();
    }

    @Override
    public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
        Path from = new Path(filePath);
        List<ListedFile> listed = Storage.listFrom(from.getParent(), from.getName());
        for (int attempt = 1; attempt < LISTING_ATTEMPTS && incomplete(listed, from); attempt++) {
            LOG.info(
                    "the listing of {} from {} was incomplete (attempt {}): listing again",
                    from.getParent(),
                    from.getName(),
                    attempt);
            pause(attempt);
            listed = Storage.listFrom(from.getParent(), from.getName());
        }
        List<FileStatus> files = new ArrayList<>();
        for (ListedFile f : TornCommits.withoutTornNewest(listed)) {
            files.add(FileStatus.of(f.path().toString(), f.length(), f.modificationTime()));
        }
        return iterator(files.iterator());
    }

    /**
     * A log listing that cannot be whole: commits are numbered without gaps, and a commit Kernel
     * lists from by its exact name is there (Kernel does so after its own write of that name
     * failed). A local disk lists whole; S3 does too, but S3Proxy 4.0.0, the test server here, cuts
     * a listing short when an object it enumerates vanishes meanwhile (another writer's temporary
     * file; fixed after that release), and other object stores may lag.
     */
    private static boolean incomplete(List<ListedFile> listed, Path from) throws IOException {
        if (!Storage.isObjectStore(from)) {
            return false;
        }
        long previous = -1;
        boolean fromListed = false;
        boolean checkpointListed = false;
        for (ListedFile f : listed) {
            String name = f.name();
            fromListed |= name.equals(from.getName());
            checkpointListed |= name.contains(".checkpoint");
            if (name.length() == COMMIT_NAME_LENGTH && name.endsWith(".json")) {
                long version;
                try {
                    version = Long.parseLong(name.substring(0, 20));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (previous >= 0 && version != previous + 1) {
                    return true;
                }
                previous = version;
            }
        }
        if (cutAfterItsLastCommit(listed)) {
            return true;
        }
        if (!fromListed
                && from.getName().length() == COMMIT_NAME_LENGTH
                && from.getName().endsWith(".json")
                && Storage.exists(from)) {
            return true;
        }
        return headMissing(listed, from, checkpointListed);
    }

    /**
     * A listing that names a checksum or a checkpoint of a version later than its last commit. Both
     * are written only after their version's commit, and a version's {@code .crc} and {@code
     * .checkpoint.parquet} sort before its {@code .json}: a listing cut between them shows the
     * newest checksum without its commit, and Kernel refuses the log ("checksum file's version
     * should be less than or equal to logSegment's version": DeltaS3ITCase's racing writers on
     * S3Proxy).
     */
    static boolean cutAfterItsLastCommit(List<ListedFile> listed) {
        long lastCommit = -1;
        long lastOther = -1;
        for (ListedFile f : listed) {
            String name = f.name();
            if (name.length() <= 21 || name.charAt(20) != '.') {
                continue;
            }
            long version;
            try {
                version = Long.parseLong(name.substring(0, 20));
            } catch (NumberFormatException e) {
                continue;
            }
            if (name.length() == COMMIT_NAME_LENGTH && name.endsWith(".json")) {
                lastCommit = Math.max(lastCommit, version);
            } else if (name.endsWith(".crc") || name.contains(".checkpoint")) {
                lastOther = Math.max(lastOther, version);
            }
        }
        return lastCommit >= 0 && lastOther > lastCommit;
    }

    /**
     * A listing from a version's prefix ({@code 00000000000000000010.}, as Kernel lists a log from
     * its start or from the checkpoint {@code _last_checkpoint} names) whose head was cut: the
     * checkpoint at that version is missing from it but there (Kernel would refuse the table with
     * "Missing checkpoint at version 10"), or, with no checkpoint listed to start from, the first
     * commit comes later than that version while the commit at that version is there ("Missing
     * delta file version 0"), or none is listed though that commit is there ("table not found").
     */
    private static boolean headMissing(List<ListedFile> listed, Path from, boolean checkpointListed)
            throws IOException {
        String fromName = from.getName();
        if (fromName.length() < 20) {
            return false;
        }
        long fromVersion;
        try {
            fromVersion = Long.parseLong(fromName.substring(0, 20));
        } catch (NumberFormatException e) {
            return false;
        }
        String checkpointName = String.format("%020d.checkpoint.parquet", fromVersion);
        if (fromName.length() == 21
                && fromName.endsWith(".")
                && listed.stream().noneMatch(f -> f.name().equals(checkpointName))
                && Storage.exists(new Path(from.getParent(), checkpointName))) {
            return true;
        }
        if (checkpointListed) {
            return false;
        }
        for (ListedFile f : listed) {
            String name = f.name();
            if (name.length() == COMMIT_NAME_LENGTH && name.endsWith(".json")) {
                long first;
                try {
                    first = Long.parseLong(name.substring(0, 20));
                } catch (NumberFormatException e) {
                    continue;
                }
                return first > fromVersion && commitExists(from, fromVersion);
            }
        }
        // No commit listed at all (Kernel would call the table not found) while one is there.
        return commitExists(from, fromVersion);
    }

    private static boolean commitExists(Path from, long version) throws IOException {
        return Storage.exists(new Path(from.getParent(), String.format("%020d.json", version)));
    }

    private static void pause(int attempt) throws IOException {
        try {
            Thread.sleep(25L * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while listing a Delta log");
        }
    }

    @Override
    public FileStatus getFileStatus(String path) throws IOException {
        Path p = new Path(path);
        org.apache.flink.core.fs.FileStatus s = fs(p).getFileStatus(p);
        return FileStatus.of(s.getPath().toString(), s.getLen(), s.getModificationTime());
    }

    @Override
    public String resolvePath(String path) throws IOException {
        Path p = new Path(path);
        return p.makeQualified(fs(p)).toString();
    }

    @Override
    public boolean mkdirs(String path) throws IOException {
        Path p = new Path(path);
        return fs(p).mkdirs(p);
    }

    @Override
    public InputFile newInputFile(String path, long fileSize) {
        Path p = new Path(path);
        return new InputFile() {
            @Override
            public long length() throws IOException {
                return fileSize >= 0 ? fileSize : fs(p).getFileStatus(p).getLen();
            }

            @Override
            public String path() {
                return path;
            }

            @Override
            public SeekableInputStream newStream() throws IOException {
                return new Input(fs(p).open(p));
            }
        };
    }

    @Override
    public OutputFile newOutputFile(String path) {
        Path target = new Path(path);
        return new OutputFile() {
            @Override
            public String path() {
                return path;
            }

            @Override
            public PositionOutputStream create(boolean atomicWrite) throws IOException {
                if (!atomicWrite) {
                    return new Output(Storage.create(target, FileSystem.WriteMode.OVERWRITE), null);
                }
                // Kernel's atomic writes are new Parquet files (checkpoints): buffer, then put if
                // absent. Only a whole file: a writer that stops half-way (a cancelled task is
                // interrupted) still closes its stream, and what it had written, Parquet's 4-byte
                // header, would otherwise be published as the checkpoint and fail every reader.
                return new Output(
                        null,
                        bytes -> {
                            if (!isWholeParquetFile(bytes)) {
                                throw new IOException(
                                        "not writing "
                                                + target
                                                + ": its writer stopped before the end ("
                                                + bytes.length
                                                + " bytes, no Parquet footer)");
                            }
                            putIfAbsent.apply(scheme(target)).create(fs(target), target, bytes);
                        });
            }

            @Override
            public void writeAtomically(CloseableIterator<String> data, boolean overwrite)
                    throws IOException {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                try (data) {
                    while (data.hasNext()) {
                        bytes.write((data.next() + "\n").getBytes(StandardCharsets.UTF_8));
                    }
                }
                if (!overwrite) {
                    TornCommits.setAsideIfTorn(target);
                    putIfAbsent
                            .apply(scheme(target))
                            .create(fs(target), target, bytes.toByteArray());
                    return;
                }
                // _last_checkpoint and checksums: replaced whole by a rename on a disk (forced to
                // it, see Storage.replace); an object store's single PUT is atomic already.
                if (Storage.isLocal(target)) {
                    Storage.replace(target, bytes.toByteArray());
                    return;
                }
                FileSystem fs = fs(target);
                if (fs.isDistributedFS()) {
                    try (FSDataOutputStream out =
                            Storage.create(target, FileSystem.WriteMode.OVERWRITE)) {
                        out.write(bytes.toByteArray());
                    }
                    return;
                }
                Path temp =
                        new Path(
                                target.getParent(),
                                "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
                try (FSDataOutputStream out =
                        Storage.create(temp, FileSystem.WriteMode.NO_OVERWRITE)) {
                    out.write(bytes.toByteArray());
                }
                if (!fs.rename(temp, target)) {
                    fs.delete(temp, false);
                    throw new IOException("cannot replace " + target);
                }
            }
        };
    }

    /**
     * Whether {@code bytes} are a whole Parquet file: the magic {@code PAR1} at both ends and,
     * before the last one, a footer length that fits between them.
     */
    static boolean isWholeParquetFile(byte[] bytes) {
        int n = bytes.length;
        if (n < 12 || !isMagic(bytes, 0) || !isMagic(bytes, n - 4)) {
            return false;
        }
        long footer =
                (bytes[n - 8] & 0xFFL)
                        | (bytes[n - 7] & 0xFFL) << 8
                        | (bytes[n - 6] & 0xFFL) << 16
                        | (bytes[n - 5] & 0xFFL) << 24;
        return footer > 0 && footer <= n - 12;
    }

    private static boolean isMagic(byte[] bytes, int at) {
        return bytes[at] == 'P'
                && bytes[at + 1] == 'A'
                && bytes[at + 2] == 'R'
                && bytes[at + 3] == '1';
    }

    @Override
    public boolean delete(String path) throws IOException {
        Path p = new Path(path);
        return fs(p).delete(p, false);
    }

    @Override
    public Optional<String> getConf(String confKey) {
        return Optional.ofNullable(conf.get(confKey));
    }

    /** An iterator that holds nothing to close, as Kernel's APIs take them. */
    static <T> CloseableIterator<T> iterator(Iterator<T> it) {
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public T next() {
                return it.next();
            }

            @Override
            public void close() {}
        };
    }

    private static final class Input extends SeekableInputStream {
        private final FSDataInputStream in;

        Input(FSDataInputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return in.read(b, off, len);
        }

        @Override
        public long getPos() throws IOException {
            return in.getPos();
        }

        @Override
        public void seek(long newPos) throws IOException {
            in.seek(newPos);
        }

        @Override
        public void readFully(byte[] b, int off, int len) throws IOException {
            int done = 0;
            while (done < len) {
                int n = in.read(b, off + done, len - done);
                if (n < 0) {
                    throw new EOFException("end of file after " + done + " of " + len + " bytes");
                }
                done += n;
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    private interface BytesSink {
        void accept(byte[] bytes) throws IOException;
    }

    /** Either a stream to the file, or a buffer handed whole to a put-if-absent at close. */
    private static final class Output extends PositionOutputStream {
        private final FSDataOutputStream out;
        private final ByteArrayOutputStream buffer;
        private final BytesSink onClose;
        private boolean closed;

        Output(FSDataOutputStream out, BytesSink onClose) {
            this.out = out;
            this.buffer = out == null ? new ByteArrayOutputStream() : null;
            this.onClose = onClose;
        }

        @Override
        public long getPos() throws IOException {
            return out != null ? out.getPos() : buffer.size();
        }

        @Override
        public void write(int b) throws IOException {
            if (out != null) {
                out.write(b);
            } else {
                buffer.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (out != null) {
                out.write(b, off, len);
            } else {
                buffer.write(b, off, len);
            }
        }

        @Override
        public void flush() throws IOException {
            if (out != null) {
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            if (out != null) {
                out.close();
            } else {
                try {
                    onClose.accept(buffer.toByteArray());
                } catch (UncheckedIOException e) {
                    throw e.getCause();
                }
            }
        }
    }
}
