package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.QueryException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;

/** A table as of one version: its columns, properties and data files. */
public final class DeltaSnapshot {

    private final String table;
    private final long version;
    private final Instant timestamp;
    private final RowType rowType;
    private final Map<String, String> properties;
    private final List<DataFile> files;
    private final DeletedRows deleted;

    DeltaSnapshot(
            String table,
            long version,
            Instant timestamp,
            RowType rowType,
            Map<String, String> properties,
            List<DataFile> files,
            DeletedRows deleted) {
        this.table = table;
        this.version = version;
        this.timestamp = timestamp;
        this.rowType = rowType;
        this.properties = Map.copyOf(properties);
        this.files = List.copyOf(files);
        this.deleted = deleted;
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

    /**
     * The data files of this version, as the log lists them, each to be read whole.
     *
     * @throws QueryException when some of them hide rows with deletion vectors (a table Spark
     *     deleted, updated or merged into with {@code delta.enableDeletionVectors}): reading,
     *     rewriting or cleaning up such files whole would bring deleted rows back or lose the
     *     vectors; {@link #count} and {@link #rows} honour them
     */
    public List<DataFile> files() {
        if (!deleted.isEmpty()) {
            throw new QueryException(
                    "Delta table "
                            + table
                            + " version "
                            + version
                            + " hides rows of "
                            + deleted.files()
                            + " data file(s) with deletion vectors (e.g. "
                            + deleted.someFile()
                            + "); this project reads, rewrites and cleans up data files whole"
                            + " and does not apply them here (only table count and table show"
                            + " do): rewrite the table without them first, in Spark: REORG"
                            + " TABLE delta.`"
                            + table
                            + "` APPLY (PURGE), with delta.enableDeletionVectors set to false");
        }
        return files;
    }

    /**
     * The rows of this version, from the files' statistics less the rows their deletion vectors
     * hide; a file whose {@code add} has no statistics (they are optional in Delta: another writer
     * may leave them out) is counted from its Parquet footer instead of as the -1 that stands for
     * "unknown".
     */
    public long count() {
        long rows = 0;
        for (DataFile file : files) {
            rows += file.numRecords() >= 0 ? file.numRecords() : footerRows(file);
            rows -= deleted.count(file);
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

    /**
     * Every row of this version, read with flink-parquet, less those deletion vectors hide (a
     * file's rows in its order, a vector holding the positions of the deleted ones).
     */
    public List<RowData> rows() {
        List<RowData> rows = new ArrayList<>();
        for (DataFile file : files) {
            try {
                List<RowData> read = DataFiles.read(new Path(file.path()), rowType);
                LongPredicate hidden = deleted.deleted(file);
                for (int position = 0; position < read.size(); position++) {
                    if (!hidden.test(position)) {
                        rows.add(read.get(position));
                    }
                }
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
