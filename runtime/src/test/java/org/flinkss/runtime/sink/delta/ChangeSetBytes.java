package org.flinkss.runtime.sink.delta;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.testing.ChangeSetRows;

import java.io.IOException;
import java.util.List;

/** Rows as one change set, as {@link ChangeSetWriter} sends them to a table's committer. */
public final class ChangeSetBytes {

    private ChangeSetBytes() {}

    public static byte[] of(RowType rowType, List<RowData> rows) throws IOException {
        return ChangeSetRows.bytes(rowType, rows);
    }
}
