package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.DataFiles;

import java.io.IOException;

/**
 * The rows of a Delta table's data file for Flink's {@code FileSource}, read with the runtime's
 * Parquet reader ({@link DataFiles#open}); a split restored from a checkpoint skips the rows its
 * position counts. A file is one split: Parquet files here are not split.
 */
@Internal
public final class DataFileFormat implements BulkFormat<RowData, FileSourceSplit> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;

    public DataFileFormat(RowType rowType) {
        this.rowType = rowType;
    }

    @Override
    public Reader<RowData> createReader(Configuration config, FileSourceSplit split)
            throws IOException {
        return reader(split, 0);
    }

    @Override
    public Reader<RowData> restoreReader(Configuration config, FileSourceSplit split)
            throws IOException {
        return reader(
                split,
                split.getReaderPosition()
                        .map(CheckpointedPosition::getRecordsAfterOffset)
                        .orElse(0L));
    }

    private Reader<RowData> reader(FileSourceSplit split, long skip) throws IOException {
        DataFiles.RowIterator rows = DataFiles.open(split.path(), rowType, skip);
        return RowBatches.reader(rows::next, rows::position, rows);
    }

    @Override
    public boolean isSplittable() {
        return false;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return InternalTypeInfo.of(rowType);
    }
}
