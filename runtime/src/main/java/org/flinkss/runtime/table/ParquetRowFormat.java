package org.flinkss.runtime.table;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.files.FileSplit;

import java.io.IOException;

/** A table's committed part files as a stream source: Spark's {@code readStream.table(...)}. */
public final class ParquetRowFormat implements RecordFormat<RowData, FileSplit> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final int eventTimeColumn;

    /**
     * @param eventTimeColumn the index of a TIMESTAMP column, or -1 for records without event time
     */
    public ParquetRowFormat(RowType rowType, int eventTimeColumn) {
        this.rowType = rowType;
        this.eventTimeColumn = eventTimeColumn;
    }

    @Override
    public SplitRecordReader<RowData> open(FileSplit split) throws IOException {
        ParquetFiles.RowIterator rows = ParquetFiles.open(split.path(), rowType, split.position());
        return new SplitRecordReader<>() {
            @Override
            public RowData next() throws IOException {
                return rows.next();
            }

            @Override
            public long position() {
                return rows.position();
            }

            @Override
            public void close() throws IOException {
                rows.close();
            }
        };
    }

    @Override
    public long eventTime(RowData row) {
        if (eventTimeColumn < 0 || row.isNullAt(eventTimeColumn)) {
            return Long.MIN_VALUE;
        }
        return row.getTimestamp(eventTimeColumn, 3).getMillisecond();
    }

    @Override
    public TypeInformation<RowData> producedType() {
        return InternalTypeInfo.of(rowType);
    }
}
