package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.connector.file.src.util.IteratorResultIterator;
import org.apache.flink.table.data.RowData;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A {@code FileSource} reader over rows read one at a time with a position (a data file's, a
 * version's change data feed): batches of up to 512 rows, each carrying the position before it, so
 * a checkpoint taken inside a split resumes at the row after the last one emitted.
 */
@Internal
final class RowBatches {

    private static final int BATCH = 512;

    /** The next row (a copy), or null at the end. */
    interface NextRow {
        RowData next() throws IOException;
    }

    private RowBatches() {}

    /**
     * @param rows the next row
     * @param position how many rows were read so far
     * @param source closed with the reader
     */
    static BulkFormat.Reader<RowData> reader(
            NextRow rows, LongSupplier position, Closeable source) {
        return new BulkFormat.Reader<>() {
            @Override
            public BulkFormat.RecordIterator<RowData> readBatch() throws IOException {
                long before = position.getAsLong();
                List<RowData> batch = new ArrayList<>(BATCH);
                RowData row;
                while (batch.size() < BATCH && (row = rows.next()) != null) {
                    batch.add(row);
                }
                return batch.isEmpty()
                        ? null
                        : new IteratorResultIterator<>(
                                batch.iterator(), CheckpointedPosition.NO_OFFSET, before);
            }

            @Override
            public void close() throws IOException {
                source.close();
            }
        };
    }
}
