package org.flinkss.runtime.source.files;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.source.SerializerVersions;
import org.flinkss.runtime.source.WorkSplit;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;

/** One file of a micro-batch, with how many of its records were already emitted. */
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

    public Path path() {
        return Paths.get(path);
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

    /** Serializes file splits in checkpoints. */
    public static final class Serializer implements SimpleVersionedSerializer<FileSplit> {
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
            return new FileSplit(in.readUTF(), in.readUTF(), in.readLong(), in.readLong());
        }
    }
}
