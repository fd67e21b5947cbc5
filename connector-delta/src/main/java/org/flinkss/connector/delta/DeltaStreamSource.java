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
import org.apache.flink.connector.file.src.FileSourceSplitSerializer;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.connector.delta.internal.StreamPosition;
import org.flinkss.connector.delta.internal.StreamPositionSerializer;
import org.flinkss.connector.delta.internal.VersionFollower;

import java.time.Duration;
import java.util.List;

/**
 * A stream of a Delta Lake table's rows, for any DataStream job: the rows of one version (the
 * snapshot), then the rows each later commit appends, version by version, for as long as the job
 * runs: Spark's {@code readStream.format("delta")}.
 *
 * <pre>{@code
 * DeltaStreamSource source =
 *         DeltaSource.forRowData("s3://bucket/tables/events").buildStream(Duration.ofSeconds(1));
 * DataStream<RowData> rows = env.fromSource(source, WatermarkStrategy.noWatermarks(), "events");
 * }</pre>
 *
 * <p>The snapshot's version is pinned when the source is built (the latest then, or the one asked
 * for with {@link DeltaSourceBuilder#version}); every {@code checkInterval} the source looks for
 * the versions committed since and reads the files they added, from their log entries (the folder
 * is never listed). A commit that removes data files (an overwrite, a MERGE, a DELETE, a
 * compaction) fails the job naming its version: a stream reads tables that are only appended to, as
 * Spark's Delta source does without {@code skipChangeCommits}. A checkpoint keeps the next version
 * to look for, the files not yet read and the position in each one being read: a job restored from
 * it reads each row once. The rows are {@link RowData} of the snapshot's columns ({@link
 * #rowType}).
 *
 * <p>Built with {@link DeltaSourceBuilder#readChangeFeed}, it is the table's change data feed
 * instead, Spark's {@code readStream.option("readChangeFeed", "true")}: each version's changes (one
 * split a version), with the columns {@code _change_type}, {@code _commit_version} and {@code
 * _commit_timestamp}; from the version {@link DeltaSourceBuilder#version} names (Spark's {@code
 * startingVersion}) or, without one, the latest snapshot as inserts first. Every row is an insert
 * of the stream, its change in {@code _change_type} (Spark's form): versions read by two readers
 * may interleave, so the rows are not a Flink changelog (SQL's {@code 'changelog-mode' = 'all'}
 * reads one version a batch for that).
 */
public final class DeltaStreamSource
        implements Source<RowData, FileSourceSplit, StreamPosition>, ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final long version;
    private final RowType rowType;
    private final Duration checkInterval;
    private final List<FileSourceSplit> snapshot;
    private final FileSource<RowData> files;
    private final boolean changeFeed;
    private final long nextVersion;

    DeltaStreamSource(
            String path,
            long version,
            RowType rowType,
            Duration checkInterval,
            List<FileSourceSplit> snapshot,
            FileSource<RowData> files) {
        this(path, version, rowType, checkInterval, snapshot, files, false, version + 1);
    }

    /**
     * @param changeFeed the source reads the table's change data feed, one split a version
     * @param nextVersion the first version the enumerator looks for after {@code snapshot}
     */
    DeltaStreamSource(
            String path,
            long version,
            RowType rowType,
            Duration checkInterval,
            List<FileSourceSplit> snapshot,
            FileSource<RowData> files,
            boolean changeFeed,
            long nextVersion) {
        this.path = path;
        this.version = version;
        this.rowType = rowType;
        this.checkInterval = checkInterval;
        this.snapshot = List.copyOf(snapshot);
        this.files = files;
        this.changeFeed = changeFeed;
        this.nextVersion = nextVersion;
    }

    /**
     * Whether the stream is the table's change data feed ({@link
     * DeltaSourceBuilder#readChangeFeed}): rows of {@link #rowType} with {@code _change_type},
     * {@code _commit_version} and {@code _commit_timestamp}.
     */
    public boolean changeFeed() {
        return changeFeed;
    }

    /** The table's folder, as given to the builder. */
    public String path() {
        return path;
    }

    /**
     * The version whose rows the stream starts with (a change data feed's starting version, or the
     * snapshot it starts with); later versions follow.
     */
    public long version() {
        return version;
    }

    /** The rows' type: the table's columns at {@link #version} (then the feed's, if a feed). */
    public RowType rowType() {
        return rowType;
    }

    /** How often the source looks for new versions. */
    public Duration checkInterval() {
        return checkInterval;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<RowData, FileSourceSplit> createReader(SourceReaderContext context)
            throws Exception {
        return files.createReader(context);
    }

    @Override
    public SplitEnumerator<FileSourceSplit, StreamPosition> createEnumerator(
            SplitEnumeratorContext<FileSourceSplit> context) {
        return restoreEnumerator(context, new StreamPosition(nextVersion, snapshot));
    }

    @Override
    public SplitEnumerator<FileSourceSplit, StreamPosition> restoreEnumerator(
            SplitEnumeratorContext<FileSourceSplit> context, StreamPosition position) {
        return new VersionFollower(context, path, checkInterval.toMillis(), position, changeFeed);
    }

    @Override
    public SimpleVersionedSerializer<FileSourceSplit> getSplitSerializer() {
        return FileSourceSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<StreamPosition> getEnumeratorCheckpointSerializer() {
        return StreamPositionSerializer.INSTANCE;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return files.getProducedType();
    }
}
