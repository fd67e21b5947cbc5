package org.flinkss.runtime.source.delta;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.table.delta.DataFiles;

import java.io.IOException;

/** The rows of a Delta table's data files, read through Flink's file system. */
public final class DeltaRowFormat implements RecordFormat<RowData, DeltaSplit> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final int eventTimeColumn;
    private final int precision;

    /**
     * @param eventTimeColumn the index of a TIMESTAMP column, or -1 for records without event time
     */
    public DeltaRowFormat(RowType rowType, int eventTimeColumn) {
        this.rowType = rowType;
        this.eventTimeColumn = eventTimeColumn;
        this.precision =
                eventTimeColumn < 0
                        ? 0
                        : LogicalTypeChecks.getPrecision(rowType.getTypeAt(eventTimeColumn));
    }

    @Override
    public SplitRecordReader<RowData> open(DeltaSplit split) throws IOException {
        DataFiles.RowIterator rows =
                DataFiles.open(new Path(split.path()), rowType, split.position());
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
        // Spark's watermark takes event time in ms: the microseconds divided by 1000 (floored).
        return row.getTimestamp(eventTimeColumn, precision).getMillisecond();
    }

    @Override
    public TypeInformation<RowData> producedType() {
        return InternalTypeInfo.of(rowType);
    }
}
