package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * One subtask's writer: rows go to a Parquet data file in the table's folder, under its final name;
 * at each checkpoint ({@link #prepareCommit}) the file is finished and described (size, row count,
 * footer statistics) for the commit. Until a commit references it, no Delta reader sees it.
 */
@Internal
public final class ParquetSinkWriter implements CommittingSinkWriter<RowData, DataFile> {

    private final String folder;
    private final RowType rowType;
    private final String prefix;

    private DataFiles.Writer writer;

    /** Files are named {@code flink-<job id>-<subtask>-<uuid>.parquet}: who wrote an orphan. */
    public ParquetSinkWriter(String folder, RowType rowType, String jobId, int subtask) {
        this.folder = folder;
        this.rowType = rowType;
        this.prefix = CheckpointFiles.appId(jobId) + String.format("-%05d-", subtask);
    }

    @Override
    public void write(RowData row, Context context) throws IOException {
        if (writer == null) {
            writer =
                    DataFiles.create(
                            new Path(folder, prefix + UUID.randomUUID() + DataFiles.SUFFIX),
                            rowType);
        }
        writer.write(row);
    }

    @Override
    public void flush(boolean endOfInput) {
        // A Parquet file cannot be flushed half-way: its rows are committed whole at a checkpoint.
    }

    @Override
    public Collection<DataFile> prepareCommit() throws IOException {
        if (writer == null) {
            return List.of();
        }
        DataFiles.Writer finishing = writer;
        writer = null;
        try {
            return List.of(finishing.finish());
        } catch (IOException e) {
            throw new IOException(
                    "Delta sink: cannot finish data file " + finishing.path() + ": " + e, e);
        } finally {
            finishing.close();
        }
    }

    @Override
    public void close() throws IOException {
        // A file still open belongs to no checkpoint: it is never committed.
        if (writer != null) {
            writer.close();
        }
    }
}
