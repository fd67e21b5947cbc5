package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

import org.flinkss.runtime.table.delta.DataFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A data file staged by {@link GrowingFileWriter}, and the columns it holds beyond the table's as
 * the job started, in the order its rows brought them: what its commit adds to the table.
 */
record GrownFile(DataFile file, List<RowType.RowField> added) {

    /**
     * Starts the bytes: where a {@link DataFile}'s would start with its path's length, a length no
     * path has. A plain data file staged by an earlier run of the query without schema evolution
     * (restored from its checkpoint) reads as one that adds no column.
     */
    private static final short MARK = (short) 0xFFFF;

    byte[] toBytes() {
        try {
            DataOutputSerializer out = new DataOutputSerializer(256);
            out.writeShort(MARK);
            out.writeInt(added.size());
            for (RowType.RowField column : added) {
                out.writeUTF(column.getName());
                out.writeUTF(column.getType().asSerializableString());
            }
            byte[] described = file.toBytes();
            out.writeInt(described.length);
            out.write(described);
            return out.getCopyOfBuffer();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static GrownFile fromBytes(byte[] bytes) {
        try {
            if (bytes.length < 2 || bytes[0] != (byte) 0xFF || bytes[1] != (byte) 0xFF) {
                return new GrownFile(DataFile.fromBytes(bytes), List.of());
            }
            DataInputDeserializer in = new DataInputDeserializer(bytes, 2, bytes.length - 2);
            int n = in.readInt();
            List<RowType.RowField> added = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                added.add(
                        new RowType.RowField(
                                name,
                                LogicalTypeParser.parse(
                                        in.readUTF(), GrownFile.class.getClassLoader())));
            }
            byte[] described = new byte[in.readInt()];
            in.readFully(described);
            return new GrownFile(DataFile.fromBytes(described), added);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
