package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.source.SerializerVersions;
import org.flinkss.runtime.table.delta.DataFile;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** {@link DeltaCommittable}s in checkpoints (Flink's committer keeps them until committed). */
@Internal
public final class DeltaCommittableSerializer
        implements SimpleVersionedSerializer<DeltaCommittable> {

    private static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(DeltaCommittable committable) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeUTF(committable.appId());
        out.writeLong(committable.checkpointId());
        out.writeInt(committable.files().size());
        for (DataFile file : committable.files()) {
            byte[] bytes = file.toBytes();
            out.writeInt(bytes.length);
            out.write(bytes);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public DeltaCommittable deserialize(int version, byte[] serialized) throws IOException {
        SerializerVersions.require("committable", VERSION, version, ConnectorRestores.WAY_OUT);
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        String appId = in.readUTF();
        long checkpointId = in.readLong();
        int n = in.readInt();
        List<DataFile> files = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            files.add(DataFile.fromBytes(bytes));
        }
        return new DeltaCommittable(appId, checkpointId, files);
    }
}
