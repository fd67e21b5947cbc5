package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of a micro-batch's change sets ({@link ChangeSetWriter}'s items), in the order they
 * reached the writer, each with its kind (a delete stays a delete).
 */
final class ChangeSets {

    private ChangeSets() {}

    static List<RowData> rows(RowType rowType, List<byte[]> items) throws IOException {
        RowDataSerializer serializer = new RowDataSerializer(rowType);
        List<RowData> rows = new ArrayList<>();
        for (byte[] set : items) {
            DataInputDeserializer in = new DataInputDeserializer(set);
            for (int n = in.readInt(); n > 0; n--) {
                rows.add(serializer.deserialize(in));
            }
        }
        return rows;
    }
}
