package org.flinkss.runtime.source.delta;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.source.SerializerVersions;
import org.flinkss.runtime.source.WorkSplit;

import java.io.IOException;

/**
 * One version of a Delta table's change data feed in a stream's micro-batch: the changes that
 * version {@code version} made, or, for a stream that starts without a starting version ({@code
 * snapshot}), every row of the table's snapshot at that version as an {@code insert}, as Spark's
 * {@code readChangeFeed} starts. Its position counts the feed rows of the version already emitted.
 */
public final class ChangeFeedSplit implements WorkSplit {

    private final long version;
    private final boolean snapshot;
    private final long batchId;
    private final long position;

    public ChangeFeedSplit(long version, boolean snapshot, long batchId, long position) {
        this.version = version;
        this.snapshot = snapshot;
        this.batchId = batchId;
        this.position = position;
    }

    public long version() {
        return version;
    }

    /** Whether the split is the snapshot at {@link #version} read as inserts. */
    public boolean snapshot() {
        return snapshot;
    }

    @Override
    public String splitId() {
        return (snapshot ? "cs" : "cv") + version;
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
    public ChangeFeedSplit withPosition(long newPosition) {
        return new ChangeFeedSplit(version, snapshot, batchId, newPosition);
    }

    @Override
    public String describe() {
        return (snapshot ? "snapshot of table version " : "changes of table version ") + version;
    }

    @Override
    public String toString() {
        return "ChangeFeedSplit{" + splitId() + ", batch " + batchId + ", " + position + '}';
    }

    /** Serializes change feed splits in checkpoints and the offset log. */
    public static final class Serializer implements SimpleVersionedSerializer<ChangeFeedSplit> {

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(ChangeFeedSplit split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(32);
            out.writeLong(split.version);
            out.writeBoolean(split.snapshot);
            out.writeLong(split.batchId);
            out.writeLong(split.position);
            return out.getCopyOfBuffer();
        }

        @Override
        public ChangeFeedSplit deserialize(int version, byte[] serialized) throws IOException {
            SerializerVersions.require("ChangeFeedSplit", getVersion(), version);
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            return new ChangeFeedSplit(
                    in.readLong(), in.readBoolean(), in.readLong(), in.readLong());
        }
    }
}
