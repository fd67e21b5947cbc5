package org.flinkss.runtime.sink.delta;

import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A micro-batch as a MERGE's source: the last row of each key in the batch's order (a later row of
 * a key replaces an earlier one, as a later batch would), and the rows with a null in their key,
 * each a row of its own (a MERGE never matches a null key: each is inserted). A row of kind {@code
 * DELETE} deletes its key's row.
 */
final class UpsertBatch {

    private final Map<List<Object>, RowData> byKey;
    private final List<RowData> nullKeyed;
    private final int sourceRows;

    private UpsertBatch(Map<List<Object>, RowData> byKey, List<RowData> nullKeyed, int sourceRows) {
        this.byKey = Collections.unmodifiableMap(byKey);
        this.nullKeyed = List.copyOf(nullKeyed);
        this.sourceRows = sourceRows;
    }

    static UpsertBatch of(List<RowData> rows, MergeKey key) {
        Map<List<Object>, RowData> byKey = new LinkedHashMap<>();
        List<RowData> nullKeyed = new ArrayList<>();
        for (RowData row : rows) {
            List<Object> k = key.of(row);
            if (k != null) {
                byKey.put(k, row);
            } else if (row.getRowKind() != RowKind.DELETE) {
                nullKeyed.add(row);
            }
        }
        return new UpsertBatch(byKey, nullKeyed, rows.size());
    }

    /** The last row of each (non-null) key, in the order the keys first came. */
    Map<List<Object>, RowData> byKey() {
        return byKey;
    }

    /** The rows with a null in their key, in the batch's order. */
    List<RowData> nullKeyed() {
        return nullKeyed;
    }

    /** Every row of the batch: Delta's {@code numSourceRows}. */
    int sourceRows() {
        return sourceRows;
    }

    static boolean isDelete(RowData row) {
        return row.getRowKind() == RowKind.DELETE;
    }
}
