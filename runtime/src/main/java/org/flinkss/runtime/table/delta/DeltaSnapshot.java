package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A table as of one version: its columns, properties and data files. */
public final class DeltaSnapshot {

    private final String table;
    private final long version;
    private final Instant timestamp;
    private final RowType rowType;
    private final Map<String, String> properties;
    private final List<DataFile> files;

    DeltaSnapshot(
            String table,
            long version,
            Instant timestamp,
            RowType rowType,
            Map<String, String> properties,
            List<DataFile> files) {
        this.table = table;
        this.version = version;
        this.timestamp = timestamp;
        this.rowType = rowType;
        this.properties = Map.copyOf(properties);
        this.files = List.copyOf(files);
    }

    public long version() {
        return version;
    }

    /** When this version was committed. */
    public Instant timestamp() {
        return timestamp;
    }

    public RowType rowType() {
        return rowType;
    }

    /** The table's properties ({@code delta.*} and the project's own). */
    public Map<String, String> properties() {
        return properties;
    }

    /** The data files of this version, as the log lists them. */
    public List<DataFile> files() {
        return files;
    }

    /**
     * The rows of this version, from the files' statistics; a file whose {@code add} has none
     * (statistics are optional in Delta: another writer may leave them out) is counted from its
     * Parquet footer instead of as the -1 that stands for "unknown".
     */
    public long count() {
        long rows = 0;
        for (DataFile file : files) {
            rows += file.numRecords() >= 0 ? file.numRecords() : footerRows(file);
        }
        return rows;
    }

    private long footerRows(DataFile file) {
        try {
            return DataFiles.describe(new Path(file.path())).numRecords();
        } catch (IOException e) {
            throw unreadable(file, " to count its rows (its log entry has no statistics)", e);
        }
    }

    /** Every row of this version, read with flink-parquet. */
    public List<RowData> rows() {
        List<RowData> rows = new ArrayList<>();
        for (DataFile file : files) {
            try {
                rows.addAll(DataFiles.read(new Path(file.path()), rowType));
            } catch (IOException e) {
                throw unreadable(file, "", e);
            }
        }
        return rows;
    }

    private UncheckedIOException unreadable(DataFile file, String why, IOException e) {
        return new UncheckedIOException(
                "cannot read "
                        + file.path()
                        + " of table "
                        + table
                        + " version "
                        + version
                        + why
                        + ": "
                        + e.getMessage(),
                e);
    }
}
