package org.flinkss.runtime.source.delta;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.flink.types.RowKind;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.source.RecordFormat;
import org.flinkss.runtime.source.SplitRecordReader;
import org.flinkss.runtime.table.delta.ChangeDataFeed;
import org.flinkss.runtime.table.delta.ChangeDataFeed.ChangeType;
import org.flinkss.runtime.table.delta.DeltaSnapshot;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.FeedRow;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The rows of one version of a Delta table's change data feed ({@link ChangeFeedSplit}): the
 * table's columns, then {@code _change_type}, {@code _commit_version} and {@code _commit_timestamp}
 * ({@link #rowType}), as Spark's {@code readChangeFeed} gives them.
 *
 * <p>Two forms. Spark's (the default): every row is an insert of the stream, its kind in {@code
 * _change_type}. Flink's changelog ({@code changelog}): the same rows and columns, each with the
 * {@link RowKind} its change type means ({@code insert} +I, {@code update_preimage} -U, {@code
 * update_postimage} +U, {@code delete} -D), a version's retractions before its additions, so that
 * Flink SQL reads the table's changes as an updating table.
 *
 * <p>A version whose change files are gone (a vacuum deleted them) fails the run in one line naming
 * the version: no restart brings them back.
 */
public final class ChangeFeedFormat implements RecordFormat<RowData, ChangeFeedSplit> {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final String folder;
    private final RowType tableRows;
    private final boolean changelog;
    private final int eventTimeColumn;
    private final int precision;

    /**
     * @param table the table's name, for messages
     * @param folder the table's folder (URI)
     * @param tableRows the table's columns
     * @param changelog rows carry the {@link RowKind} of their change
     * @param eventTimeColumn the index in {@link #rowType} of a TIMESTAMP column, or -1
     */
    public ChangeFeedFormat(
            String table,
            String folder,
            RowType tableRows,
            boolean changelog,
            int eventTimeColumn) {
        this.table = table;
        this.folder = folder;
        this.tableRows = tableRows;
        this.changelog = changelog;
        this.eventTimeColumn = eventTimeColumn;
        this.precision =
                eventTimeColumn < 0
                        ? 0
                        : LogicalTypeChecks.getPrecision(
                                rowType(tableRows).getTypeAt(eventTimeColumn));
    }

    /**
     * The feed's columns: the table's, then {@code _change_type, _commit_version,
     * _commit_timestamp}.
     */
    public static RowType rowType(RowType tableRows) {
        List<RowType.RowField> fields = new ArrayList<>(tableRows.getFields());
        fields.add(
                new RowType.RowField(
                        ChangeDataFeed.CHANGE_TYPE, (LogicalType) VarCharType.STRING_TYPE));
        fields.add(new RowType.RowField(ChangeDataFeed.COMMIT_VERSION, new BigIntType()));
        fields.add(
                new RowType.RowField(
                        ChangeDataFeed.COMMIT_TIMESTAMP, new LocalZonedTimestampType(6)));
        return new RowType(fields);
    }

    /** The row kind a change means in Flink's changelog. */
    public static RowKind rowKind(ChangeType type) {
        switch (type) {
            case UPDATE_PREIMAGE:
                return RowKind.UPDATE_BEFORE;
            case UPDATE_POSTIMAGE:
                return RowKind.UPDATE_AFTER;
            case DELETE:
                return RowKind.DELETE;
            default:
                return RowKind.INSERT;
        }
    }

    private static boolean retracts(ChangeType type) {
        return type == ChangeType.DELETE || type == ChangeType.UPDATE_PREIMAGE;
    }

    @Override
    public SplitRecordReader<RowData> open(ChangeFeedSplit split) throws IOException {
        List<FeedRow> feed = read(split);
        if (changelog) {
            // A key's old value leaves before its new one arrives (a complete-mode overwrite
            // lists its inserts before its deletes). The sort is stable, so positions hold.
            feed = new ArrayList<>(feed);
            feed.sort(Comparator.comparing(r -> retracts(r.changeType()) ? 0 : 1));
        }
        List<FeedRow> rows = feed;
        RowData.FieldGetter[] getters = new RowData.FieldGetter[tableRows.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(tableRows.getTypeAt(i), i);
        }
        return new SplitRecordReader<>() {
            private long at = split.position();

            @Override
            public RowData next() {
                if (at >= rows.size()) {
                    return null;
                }
                return toRow(rows.get((int) at++), getters);
            }

            @Override
            public long position() {
                return at;
            }

            @Override
            public void close() {}
        };
    }

    private List<FeedRow> read(ChangeFeedSplit split) throws IOException {
        DeltaTable delta = DeltaTable.forPath(folder);
        long v = split.version();
        try {
            if (!split.snapshot()) {
                return delta.changes(v, v);
            }
            DeltaSnapshot snapshot = delta.snapshotAt(v);
            List<FeedRow> rows = new ArrayList<>();
            for (RowData row : snapshot.rows()) {
                rows.add(new FeedRow(row, ChangeType.INSERT, v, snapshot.timestamp()));
            }
            return rows;
        } catch (UncheckedIOException e) {
            if (missingFile(e)) {
                throw new PermanentFailure(
                        "change data feed of table '"
                                + table
                                + "': a file of version "
                                + v
                                + " is gone ("
                                + e.getCause().getMessage()
                                + "). A vacuum deletes the change files of versions older than"
                                + " its retention: reset the query that reads the feed (its next"
                                + " run starts from the table's snapshot), or read from a later"
                                + " 'starting-version'.",
                        e);
            }
            throw e.getCause();
        }
    }

    private static boolean missingFile(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof FileNotFoundException) {
                return true;
            }
        }
        return false;
    }

    private RowData toRow(FeedRow feed, RowData.FieldGetter[] getters) {
        int n = getters.length;
        GenericRowData out = new GenericRowData(n + 3);
        for (int i = 0; i < n; i++) {
            out.setField(i, getters[i].getFieldOrNull(feed.row()));
        }
        out.setField(n, StringData.fromString(feed.changeType().text()));
        out.setField(n + 1, feed.version());
        out.setField(n + 2, TimestampData.fromInstant(feed.timestamp()));
        if (changelog) {
            out.setRowKind(rowKind(feed.changeType()));
        }
        return out;
    }

    @Override
    public long eventTime(RowData row) {
        if (eventTimeColumn < 0 || row.isNullAt(eventTimeColumn)) {
            return Long.MIN_VALUE;
        }
        return row.getTimestamp(eventTimeColumn, precision).getMillisecond();
    }

    @Override
    public TypeInformation<RowData> producedType() {
        return InternalTypeInfo.of(rowType(tableRows));
    }
}
