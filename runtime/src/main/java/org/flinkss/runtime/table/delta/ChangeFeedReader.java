package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.ChangeDataFeed.ChangeType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a range of versions' change data feed as delta-spark's {@code CDCReader} does: a version
 * with {@code cdc} actions is its change data files' rows, each with its {@code _change_type}; any
 * other version is its added files' rows as {@code insert} and its removed files' rows (removes
 * with {@code dataChange}) as {@code delete}. Removed files are read where they are: a vacuum that
 * deleted them ends the feed of their versions, as in Delta.
 */
final class ChangeFeedReader {

    private final String path;
    private final VersionReader versions;

    ChangeFeedReader(String path, VersionReader versions) {
        this.path = path;
        this.versions = versions;
    }

    List<FeedRow> read(RowType rowType, long from, long to) {
        List<FeedRow> feed = new ArrayList<>();
        for (long v = from; v <= to; v++) {
            LogEntry e = versions.entry(v);
            try {
                if (!e.changeFiles.isEmpty()) {
                    RowType withType = ChangeDataFeed.changeFileType(rowType);
                    int at = rowType.getFieldCount();
                    for (String file : e.changeFiles) {
                        for (RowData row : DataFiles.read(new Path(file), withType)) {
                            feed.add(
                                    new FeedRow(
                                            tableColumns(row, rowType),
                                            changeType(row.getString(at).toString(), file),
                                            v,
                                            e.timestamp));
                        }
                    }
                } else {
                    for (AddedFile added : e.added) {
                        for (RowData row : DataFiles.read(new Path(added.file().path()), rowType)) {
                            feed.add(new FeedRow(row, ChangeType.INSERT, v, e.timestamp));
                        }
                    }
                    for (String removed : e.removed) {
                        for (RowData row : DataFiles.read(new Path(removed), rowType)) {
                            feed.add(new FeedRow(row, ChangeType.DELETE, v, e.timestamp));
                        }
                    }
                }
            } catch (IOException ex) {
                throw new UncheckedIOException(
                        "Delta table "
                                + path
                                + ": cannot read the change data feed of version "
                                + v
                                + " ("
                                + ex.getMessage()
                                + "); a vacuum deletes the files of older versions' changes:"
                                + " read from a later --from-version",
                        ex);
            }
        }
        return feed;
    }

    /** The table's columns of a change data file's row (all but {@code _change_type}). */
    private static RowData tableColumns(RowData row, RowType rowType) {
        GenericRowData out = new GenericRowData(rowType.getFieldCount());
        for (int i = 0; i < rowType.getFieldCount(); i++) {
            out.setField(i, RowData.createFieldGetter(rowType.getTypeAt(i), i).getFieldOrNull(row));
        }
        return out;
    }

    private ChangeType changeType(String text, String file) {
        for (ChangeType t : ChangeType.values()) {
            if (t.text().equals(text)) {
                return t;
            }
        }
        throw new IllegalStateException(
                "Delta table " + path + ": change data file " + file + " has _change_type " + text);
    }
}
