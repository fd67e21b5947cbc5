package org.flinkss.runtime.table.delta;

import javax.annotation.Nullable;

import java.io.IOException;

/** One column of a row group, read row by row by {@link RowParquetReader}. */
interface ColumnCursor {

    /**
     * The current row's value as the row holds it (null for a null), then moves to the next row.
     */
    @Nullable
    Object next() throws IOException;

    /** Moves to the next row without decoding the current row's value. */
    void skip() throws IOException;
}
