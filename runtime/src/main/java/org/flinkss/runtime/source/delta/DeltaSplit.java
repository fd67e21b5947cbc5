package org.flinkss.runtime.source.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.source.SerializerVersions;
import org.flinkss.runtime.source.WorkSplit;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * One data file of a Delta table in a stream's micro-batch, where the stream found it: the {@code
 * index}-th file of the table's snapshot at {@code version} ({@code snapshot}, a stream's first
 * batches, as Spark's DeltaSource starts), or the {@code index}-th file that version {@code
 * version} added.
 */
public final class DeltaSplit implements WorkSplit {

    private final String path;
    private final long size;
    private final long version;
    private final long index;
    private final boolean snapshot;
    private final long batchId;
    private final long position;

    public DeltaSplit(
            String path,
            long size,
            long version,
            long index,
            boolean snapshot,
            long batchId,
            long position) {
        this.path = path;
        this.size = size;
        this.version = version;
        this.index = index;
        this.snapshot = snapshot;
        this.batchId = batchId;
        this.position = position;
    }

    /** The file, a URI. */
    public String path() {
        return path;
    }

    public long size() {
        return size;
    }

    @Override
    public long sizeInBytes() {
        return size;
    }

    public long version() {
        return version;
    }

    public long index() {
        return index;
    }

    /** Whether the file was taken from the snapshot at {@link #version}, not from its log entry. */
    public boolean snapshot() {
        return snapshot;
    }

    @Override
    public String splitId() {
        return (snapshot ? "s" : "v") + version + "-" + index;
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
    public DeltaSplit withPosition(long newPosition) {
        return new DeltaSplit(path, size, version, index, snapshot, batchId, newPosition);
    }

    @Override
    public String describe() {
        return "file " + path + " (table version " + version + ")";
    }

    @Override
    public String location() {
        return path;
    }

    @Override
    public String toString() {
        return "DeltaSplit{"
                + splitId()
                + ", "
                + path
                + ", batch "
                + batchId
                + ", "
                + position
                + '}';
    }

    /**
     * Serializes Delta splits in checkpoints and the offset log. The bytes name the data file where
     * it was planned; a serializer that knows the table's folder in this run ({@link
     * DeltaPlanner#splitSerializer()}) reads a file that was directly in a folder of the table's
     * name (every data file this project writes is) as that file of this run's folder: a base that
     * was moved or copied since reads its own table, never the old place's.
     */
    public static final class Serializer implements SimpleVersionedSerializer<DeltaSplit> {

        /** The table's folder in this run (a URI), or null to read paths as kept. */
        @Nullable private final String folder;

        /** Reads splits with the paths they were written with (tests, tools). */
        public Serializer() {
            this(null);
        }

        /**
         * @param folder the table's folder (a URI) in this run
         */
        public Serializer(@Nullable String folder) {
            this.folder = folder;
        }

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(DeltaSplit split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256);
            out.writeUTF(split.path);
            out.writeLong(split.size);
            out.writeLong(split.version);
            out.writeLong(split.index);
            out.writeBoolean(split.snapshot);
            out.writeLong(split.batchId);
            out.writeLong(split.position);
            return out.getCopyOfBuffer();
        }

        @Override
        public DeltaSplit deserialize(int version, byte[] serialized) throws IOException {
            SerializerVersions.require("DeltaSplit", getVersion(), version);
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            return new DeltaSplit(
                    rebased(in.readUTF()),
                    in.readLong(),
                    in.readLong(),
                    in.readLong(),
                    in.readBoolean(),
                    in.readLong(),
                    in.readLong());
        }

        /**
         * {@code path} as a file of this run's table folder if it was a file directly in a folder
         * of the same name (the table's folder where the split was planned); any other path as it
         * is.
         */
        private String rebased(String path) {
            if (folder == null) {
                return path;
            }
            Path file = new Path(path);
            Path table = new Path(folder);
            Path parent = file.getParent();
            if (parent == null || !parent.getName().equals(table.getName())) {
                return path;
            }
            return new Path(table, file.getName()).toString();
        }
    }
}
