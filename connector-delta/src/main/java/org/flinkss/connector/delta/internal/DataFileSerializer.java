package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import org.flinkss.runtime.source.SerializerVersions;
import org.flinkss.runtime.table.delta.DataFile;

import java.io.IOException;

/** A writer subtask's finished data file, on its way to {@link CheckpointFiles}. */
@Internal
public final class DataFileSerializer implements SimpleVersionedSerializer<DataFile> {

    private static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(DataFile file) {
        return file.toBytes();
    }

    @Override
    public DataFile deserialize(int version, byte[] serialized) throws IOException {
        SerializerVersions.require(
                "data file description", VERSION, version, ConnectorRestores.WAY_OUT);
        return DataFile.fromBytes(serialized);
    }
}
