package org.flinkss.connector.delta;

import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;

import org.flinkss.connector.delta.internal.DataFileFormat;
import org.flinkss.connector.delta.internal.SnapshotSplits;
import org.flinkss.connector.delta.internal.TableFeatures;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.OptionalLong;

/**
 * Builds a {@link DeltaSource}: {@code DeltaSource.forRowData(path)}, optionally {@link #version},
 * then {@link #build}, which reads the table's log once to pin the version and list its files.
 */
public final class DeltaSourceBuilder {

    private final String path;
    private OptionalLong version = OptionalLong.empty();

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
     * The source.
     *
     * @throws IllegalArgumentException naming what is wrong: no path, no Delta table at the path, a
     *     version the table does not have (the message names the versions there are), or a table
     *     with column mapping or deletion vectors
     */
    public DeltaSource build() {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException(
                    "Delta source: no table path; give the table's folder, e.g."
                            + " DeltaSource.forRowData(\"s3://bucket/tables/events\")");
        }
        DeltaTable table = DeltaTable.forPath(path);
        DeltaSnapshot snapshot =
                version.isPresent() ? table.snapshotAt(version.getAsLong()) : table.snapshot();
        TableFeatures.refuseUnsupported("Delta source for '" + path + "'", snapshot.properties());
        // The enumerator ignores the folder given to FileSource (which wants one): splits are
        // the version's files, not the folder's.
        FileSource<RowData> source =
                FileSource.forBulkFileFormat(
                                new DataFileFormat(snapshot.rowType()), new Path(table.path()))
                        .setFileEnumerator(new SnapshotSplits(snapshot.files()))
                        .build();
        return new DeltaSource(path, snapshot.version(), snapshot.rowType(), source);
    }
}
