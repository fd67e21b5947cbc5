package org.flinkss.runtime.query;

import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.TableMode;
import org.flinkss.runtime.table.delta.Completeness;

import javax.annotation.Nullable;

/**
 * Which tables' commits say that their windows are final up to the batch's watermark: tables of
 * windows ({@code window_start, window_end, ...}: the course's windows and sessions, a SQL window
 * TVF's result) appended (append mode) or merged (update mode), where a row for a window whose end
 * the watermark has reached is late and dropped. A table replaced whole (complete mode) is never
 * final: Spark's complete mode drops no late row, and neither does this project's.
 */
final class FinalWindows {

    private FinalWindows() {}

    /** The column a final bound is on for this table, or null when it has none. */
    @Nullable
    static String column(RowType rowType, TableMode mode) {
        if (mode == TableMode.REPLACED) {
            return null;
        }
        int start = rowType.getFieldIndex("window_start");
        int end = rowType.getFieldIndex(Completeness.WINDOW_END);
        if (start < 0 || end < 0) {
            return null;
        }
        return rowType.getTypeAt(end).is(LogicalTypeFamily.TIMESTAMP)
                ? Completeness.WINDOW_END
                : null;
    }
}
