package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.source.delta.ChangeFeedFormat;
import org.flinkss.runtime.source.delta.ChangeFeedSplit;

import java.io.IOException;

/**
 * One version of a Delta table's change data feed for Flink's {@code FileSource}: a split named
 * {@code cv<version>} is that version's changes, {@code cs<version>} the snapshot at it as inserts
 * ({@link #changes}, {@link #snapshot}), read by the runtime's {@link ChangeFeedFormat}; a split
 * restored from a checkpoint skips the rows its position counts.
 */
@Internal
public final class ChangeFeedBulkFormat implements BulkFormat<RowData, FileSourceSplit> {

    private static final long serialVersionUID = 1L;

    private final ChangeFeedFormat format;

    public ChangeFeedBulkFormat(String path, RowType tableRows, boolean changelog) {
        this.format = new ChangeFeedFormat(path, path, tableRows, changelog, -1);
    }

    /** The split of version {@code version}'s changes; its path is the table's folder. */
    public static FileSourceSplit changes(String path, long version) {
        return split("cv", path, version);
    }

    /** The split of the snapshot at {@code version}, every row an insert. */
    public static FileSourceSplit snapshot(String path, long version) {
        return split("cs", path, version);
    }

    private static FileSourceSplit split(String kind, String path, long version) {
        return new FileSourceSplit(
                kind + version, new org.apache.flink.core.fs.Path(path), 0, 0, 0, 0);
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
        String id = split.splitId();
        ChangeFeedSplit version =
                new ChangeFeedSplit(Long.parseLong(id.substring(2)), id.startsWith("cs"), 0, skip);
        SplitRecordReader<RowData> rows = format.open(version);
        return RowBatches.reader(rows::next, rows::position, rows);
    }

    @Override
    public boolean isSplittable() {
        return false;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return format.producedType();
    }
}
