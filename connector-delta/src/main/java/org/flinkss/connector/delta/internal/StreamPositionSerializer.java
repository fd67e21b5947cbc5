package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.FileSourceSplitSerializer;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.source.SerializerVersions;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** {@link StreamPosition} in a checkpoint: the next version, then each pending split. */
@Internal
public final class StreamPositionSerializer implements SimpleVersionedSerializer<StreamPosition> {

    public static final StreamPositionSerializer INSTANCE = new StreamPositionSerializer();

    private static final int VERSION = 1;

    private final FileSourceSplitSerializer splits = FileSourceSplitSerializer.INSTANCE;

    private StreamPositionSerializer() {}

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(StreamPosition position) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeLong(position.nextVersion());
        out.writeInt(splits.getVersion());
        out.writeInt(position.pending().size());
        for (FileSourceSplit split : position.pending()) {
            byte[] bytes = splits.serialize(split);
            out.writeInt(bytes.length);
            out.write(bytes);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public StreamPosition deserialize(int version, byte[] serialized) throws IOException {
        SerializerVersions.require(
                "a Delta stream's position", VERSION, version, ConnectorRestores.WAY_OUT);
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        long nextVersion = in.readLong();
        int splitVersion = in.readInt();
        int n = in.readInt();
        List<FileSourceSplit> pending = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            pending.add(splits.deserialize(splitVersion, bytes));
        }
        return new StreamPosition(nextVersion, pending);
    }
}
