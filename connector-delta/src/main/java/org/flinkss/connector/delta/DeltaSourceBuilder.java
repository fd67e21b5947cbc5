package org.flinkss.connector.delta;

import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;

import org.flinkss.connector.delta.internal.DataFileFormat;
import org.flinkss.connector.delta.internal.SnapshotSplits;
import org.flinkss.connector.delta.internal.TableFeatures;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Builds a {@link DeltaSource}: {@code DeltaSource.forRowData(path)}, optionally {@link #version},
 * then {@link #build}, which reads the table's log once to pin the version and list its files; or
 * {@link #buildStream}, a {@link DeltaStreamSource} that goes on with the versions after it.
 */
public final class DeltaSourceBuilder {

    private final String path;
    private OptionalLong version = OptionalLong.empty();
    private boolean changeFeed;

    DeltaSourceBuilder(String path) {
        this.path = path;
    }

    /** Reads this version of the table (Delta's time travel), not the latest. */
    public DeltaSourceBuilder version(long version) {
        if (version < 0) {
            throw new IllegalArgumentException(
                    "Delta source for '" + path + "': version " + version + " is negative");
        }
        this.version = OptionalLong.of(version);
        return this;
    }

    /**
     * Reads the table's change data feed instead of its rows (Spark's {@code readChangeFeed}): a
     * {@link #buildStream} of each version's changes, from {@link #version} on (Spark's {@code
     * startingVersion}) or, without one, the latest snapshot as inserts first. The table needs
     * {@code delta.enableChangeDataFeed}.
     */
    public DeltaSourceBuilder readChangeFeed() {
        this.changeFeed = true;
        return this;
    }

    /**
     * The source.
     *
     * @throws IllegalArgumentException naming what is wrong: no path, no Delta table at the path, a
     *     version the table does not have (the message names the versions there are), or a table
     *     with column mapping or deletion vectors
     */
    public DeltaSource build() {
        if (changeFeed) {
            throw new IllegalArgumentException(
                    "Delta source for '"
                            + path
                            + "': a change data feed is a stream: use buildStream(interval)");
        }
        DeltaTable table = table();
        DeltaSnapshot snapshot = snapshot(table);
        // The enumerator ignores the folder given to FileSource (which wants one): splits are
        // the version's files, not the folder's.
        FileSource<RowData> source =
                FileSource.forBulkFileFormat(
                                new DataFileFormat(snapshot.rowType()), new Path(table.path()))
                        .setFileEnumerator(new SnapshotSplits(snapshot.files()))
                        .build();
        return new DeltaSource(path, snapshot.version(), snapshot.rowType(), source);
    }

    /**
     * A stream of the table: the rows of the version {@link #version} names (the latest if none),
     * then those of every later commit, looked for every {@code checkInterval}.
     *
     * @throws IllegalArgumentException as {@link #build} does, or for an interval that is not
     *     positive
     */
    public DeltaStreamSource buildStream(Duration checkInterval) {
        if (checkInterval == null || checkInterval.isNegative() || checkInterval.isZero()) {
            throw new IllegalArgumentException(
                    "Delta stream source for '"
                            + path
                            + "': the check interval must be positive, e.g."
                            + " Duration.ofSeconds(1); got "
                            + checkInterval);
        }
        DeltaTable table = table();
        if (changeFeed) {
            return ChangeFeedStreams.build(path, table, version, checkInterval);
        }
        DeltaSnapshot snapshot = snapshot(table);
        List<FileSourceSplit> splits = new ArrayList<>();
        List<DataFile> files = snapshot.files();
        for (int i = 0; i < files.size(); i++) {
            DataFile file = files.get(i);
            splits.add(
                    new FileSourceSplit(
                            "s" + snapshot.version() + "-" + i,
                            new Path(file.path()),
                            0,
                            file.size(),
                            file.modificationTime(),
                            file.size()));
        }
        // Only the reader side of FileSource is used: the enumerator follows the log.
        FileSource<RowData> reader =
                FileSource.forBulkFileFormat(
                                new DataFileFormat(snapshot.rowType()), new Path(table.path()))
                        .build();
        return new DeltaStreamSource(
                path, snapshot.version(), snapshot.rowType(), checkInterval, splits, reader);
    }

    private DeltaTable table() {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException(
                    "Delta source: no table path; give the table's folder, e.g."
                            + " DeltaSource.forRowData(\"s3://bucket/tables/events\")");
        }
        return DeltaTable.forPath(path);
    }

    private DeltaSnapshot snapshot(DeltaTable table) {
        DeltaSnapshot snapshot =
                version.isPresent() ? table.snapshotAt(version.getAsLong()) : table.snapshot();
        TableFeatures.refuseUnsupported("Delta source for '" + path + "'", snapshot.properties());
        return snapshot;
    }
}
