package org.flinkss.runtime.testing;

import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.List;

/**
 * Rows as one change set, as the runtime's {@code ChangeSetWriter} sends them to a table's
 * committer ({@code MergeCommit}, {@code CompleteCommit}): for tests of other modules that commit
 * batches to a Delta table without running a query.
 */
public final class ChangeSetRows {

    private ChangeSetRows() {}

    public static byte[] bytes(RowType rowType, List<RowData> rows) throws IOException {
        RowDataSerializer serializer = new RowDataSerializer(rowType);
        DataOutputSerializer out = new DataOutputSerializer(1024);
        out.writeInt(rows.size());
        for (RowData row : rows) {
            serializer.serialize(row, out);
        }
        return out.getCopyOfBuffer();
    }
}
