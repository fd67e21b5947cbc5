package org.flinkss.connector.delta.table;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.delta.ChangeFeedFormat;
import org.flinkss.runtime.source.delta.ChangeFeedPlanner;
import org.flinkss.runtime.sql.MicroBatchTableSource;
import org.flinkss.runtime.sql.SqlSession;
import org.flinkss.runtime.sql.SqlWatermark;

import javax.annotation.Nullable;

/**
 * A Delta table's change data feed as a stream of micro-batches ({@code 'read-change-feed' =
 * 'true'}), Spark's {@code readStream.format("delta").option("readChangeFeed", "true")}: the
 * table's columns, then {@code _change_type}, {@code _commit_version} and {@code
 * _commit_timestamp}, version by version from {@code 'starting-version'} (or the current snapshot
 * as inserts first), exactly once across runs: the offset is the table version ({@link
 * ChangeFeedPlanner}). With {@code 'changelog-mode' = 'all'} the rows carry Flink's row kinds and
 * the table is an updating one for the planner.
 */
final class DeltaChangeFeedTableSource extends MicroBatchTableSource {

    private final String sqlTable;
    private final DeltaLocation location;
    private final RowType declared;
    private final RowType tableRows;
    private final int[] columns;
    @Nullable private final SqlWatermark watermark;
    @Nullable private final ReadLimit limit;
    @Nullable private final Long startingVersion;
    private final boolean changelog;

    /**
     * @param tableRows the table's columns (without the feed's)
     * @param columns the index of each declared column in the feed's rows
     */
    DeltaChangeFeedTableSource(
            String sqlTable,
            DeltaLocation location,
            RowType declared,
            RowType tableRows,
            int[] columns,
            @Nullable SqlWatermark watermark,
            @Nullable ReadLimit limit,
            @Nullable Long startingVersion,
            boolean changelog) {
        this.sqlTable = sqlTable;
        this.location = location;
        this.declared = declared;
        this.tableRows = tableRows;
        this.columns = columns;
        this.watermark = watermark;
        this.limit = limit;
        this.startingVersion = startingVersion;
        this.changelog = changelog;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return changelog ? ChangelogMode.all() : ChangelogMode.insertOnly();
    }

    @Override
    protected DataStream<RowData> rows() {
        SqlSession session = SqlSession.current(DeltaTableFactory.IDENTIFIER);
        QueryContext query = session.context();
        RowType feedRows = ChangeFeedFormat.rowType(tableRows);
        int rowtime = watermark == null ? -1 : feedRows.getFieldIndex(watermark.column());
        String table = location.table();
        String folder = location.warehouse().folder(table);
        DataStream<RowData> rows =
                query.source(
                        table,
                        "DeltaChangeFeed[" + location.uri() + "]",
                        new ChangeFeedPlanner(table, folder, startingVersion, changelog),
                        new ChangeFeedFormat(table, folder, tableRows, changelog, rowtime),
                        watermark == null ? null : watermark.delay(),
                        limit != null ? limit : query.readLimit(),
                        false);
        return declaredColumns(session, sqlTable, rows, feedRows, rowtime, declared, columns);
    }

    @Override
    public DynamicTableSource copy() {
        return new DeltaChangeFeedTableSource(
                sqlTable,
                location,
                declared,
                tableRows,
                columns,
                watermark,
                limit,
                startingVersion,
                changelog);
    }

    @Override
    public String asSummaryString() {
        return "DeltaChangeFeed[" + location.uri() + "]";
    }
}
