package org.flinkss.connector.delta;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.PendingSplitsCheckpoint;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A bounded read of one version of a Delta Lake table, for any DataStream job: every row of the
 * data files that version lists, once.
 *
 * <pre>{@code
 * DeltaSource source = DeltaSource.forRowData("s3://bucket/tables/people").build();
 * DataStream<RowData> rows =
 *         env.fromSource(source, WatermarkStrategy.noWatermarks(), "people v" + source.version());
 * }</pre>
 *
 * <p>The version is pinned when the source is built (the latest then, or the one asked for with
 * {@link DeltaSourceBuilder#version}): commits made while the job runs are not read, and a job
 * restored from a checkpoint goes on reading the same version. Each data file is one split of
 * Flink's {@code FileSource}, read with the runtime's Parquet reader; a checkpoint keeps the files
 * still to read and the position in each one being read, so a restored job reads each row once. The
 * rows are {@link RowData} of the table's columns ({@link #rowType}). Not a stream of the table's
 * changes: {@link DeltaSourceBuilder#buildStream} gives a {@link DeltaStreamSource}, which goes on
 * with the versions committed later.
 */
public final class DeltaSource
        implements Source<RowData, FileSourceSplit, PendingSplitsCheckpoint<FileSourceSplit>>,
                ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final long version;
    private final RowType rowType;
    private final FileSource<RowData> files;

    DeltaSource(String path, long version, RowType rowType, FileSource<RowData> files) {
        this.path = path;
        this.version = version;
        this.rowType = rowType;
        this.files = files;
    }

    /** A builder of a bounded read of the Delta table at {@code path} (a folder or a URI). */
    public static DeltaSourceBuilder forRowData(String path) {
        return new DeltaSourceBuilder(path);
    }

    /** The table's folder, as given to the builder. */
    public String path() {
        return path;
    }

    /** The table version this source reads. */
    public long version() {
        return version;
    }

    /** The table's columns at {@link #version}: the rows' type. */
    public RowType rowType() {
        return rowType;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<RowData, FileSourceSplit> createReader(SourceReaderContext context)
            throws Exception {
        return files.createReader(context);
    }

    @Override
    public SplitEnumerator<FileSourceSplit, PendingSplitsCheckpoint<FileSourceSplit>>
            createEnumerator(SplitEnumeratorContext<FileSourceSplit> context) throws Exception {
        return files.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<FileSourceSplit, PendingSplitsCheckpoint<FileSourceSplit>>
            restoreEnumerator(
                    SplitEnumeratorContext<FileSourceSplit> context,
                    PendingSplitsCheckpoint<FileSourceSplit> checkpoint)
                    throws Exception {
        return files.restoreEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<FileSourceSplit> getSplitSerializer() {
        return files.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<PendingSplitsCheckpoint<FileSourceSplit>>
            getEnumeratorCheckpointSerializer() {
        return files.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return files.getProducedType();
    }
}
