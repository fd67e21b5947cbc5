package org.flinkss.runtime.source.files;

import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.source.SerializerVersions;
import org.flinkss.runtime.source.WorkSplit;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;

/**
 * One file of a micro-batch, with how many of its records were already emitted. The file is a local
 * path (as it always was, so older checkpoints read the same) or a URI on an object store ({@code
 * s3://bucket/key}).
 */
public final class FileSplit implements WorkSplit {

    private final String path;
    private final String key;
    private final long batchId;
    private final long position;

    public FileSplit(String path, String key, long batchId, long position) {
        this.path = path;
        this.key = key;
        this.batchId = batchId;
        this.position = position;
    }

    /** The file on any storage Flink's file system serves: a local path or an object's URI. */
    public Path file() {
        return Storage.location(path);
    }

    /**
     * The file's bytes through Flink's file system. A file that is gone throws {@link
     * FileNotFoundException} (or {@link NoSuchFileException}) and one that may not be read {@link
     * AccessDeniedException}, on a local disk as on S3 (where S3A reports a 403 so): the source
     * tells the two apart, failing at once on the second.
     */
    public InputStream open() throws IOException {
        Path file = file();
        try {
            return file.getFileSystem().open(file);
        } catch (FileNotFoundException e) {
            if (!Storage.isLocal(file)) {
                throw e;
            }
            // Flink's local file system reports a file it may not read as not found.
            File local = Storage.localFile(file, "a landing file");
            if (local.exists() && !Files.isReadable(local.toPath())) {
                AccessDeniedException denied =
                        new AccessDeniedException(local.toString(), null, "permission denied");
                denied.initCause(e);
                throw denied;
            }
            NoSuchFileException gone = new NoSuchFileException(local.toString());
            gone.initCause(e);
            throw gone;
        }
    }

    /** The file's path relative to the source folder: its identity in the committed position. */
    public String key() {
        return key;
    }

    @Override
    public String splitId() {
        return key;
    }

    @Override
    public long batchId() {
        return batchId;
    }

    @Override
    public long position() {
        return position;
    }

    @Override
    public FileSplit withPosition(long newPosition) {
        return new FileSplit(path, key, batchId, newPosition);
    }

    @Override
    public String describe() {
        return "file " + path;
    }

    @Override
    public String location() {
        return path;
    }

    @Override
    public String toString() {
        return "FileSplit{" + path + ", batch " + batchId + ", position " + position + '}';
    }

    /**
     * Serializes file splits in checkpoints and the offset log. The bytes name the file where it
     * was planned; a serializer that knows the source folder of this run ({@link
     * FilePlanner#splitSerializer()}) reads every split as a file of that folder, by its key: a
     * base folder that was moved or copied since reads its own landed files, never the old place's.
     */
    public static final class Serializer implements SimpleVersionedSerializer<FileSplit> {

        /** The source folder of this run (a local path or a URI), or null to read paths as kept. */
        @Nullable private final String root;

        /** Reads splits with the paths they were written with (tests, tools). */
        public Serializer() {
            this(null);
        }

        /**
         * @param root the source folder as {@link FilePlanner} names it: splits are read as files
         *     below it, by their keys
         */
        public Serializer(@Nullable String root) {
            this.root = root;
        }

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(FileSplit split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256);
            out.writeUTF(split.path);
            out.writeUTF(split.key);
            out.writeLong(split.batchId);
            out.writeLong(split.position);
            return out.getCopyOfBuffer();
        }

        @Override
        public FileSplit deserialize(int version, byte[] serialized) throws IOException {
            SerializerVersions.require("FileSplit", getVersion(), version);
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            String path = in.readUTF();
            String key = in.readUTF();
            return new FileSplit(rebased(path, key), key, in.readLong(), in.readLong());
        }

        /**
         * The file of {@code key} below this run's source folder, when {@code path} was that key
         * below the folder where the split was planned (it always is: the planner names each file
         * by both); any other path as it is.
         */
        private String rebased(String path, String key) {
            if (root == null || !path.endsWith("/" + key)) {
                return path;
            }
            return root + "/" + key;
        }
    }
}
