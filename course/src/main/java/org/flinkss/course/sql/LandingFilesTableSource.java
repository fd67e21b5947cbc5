package org.flinkss.course.sql;

import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventLinesFormat;
import org.flinkss.course.event.ParsedEvent;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.files.FilePlanner;
import org.flinkss.runtime.sql.MicroBatchTableSource;
import org.flinkss.runtime.sql.SqlColumns;
import org.flinkss.runtime.sql.SqlSession;
import org.flinkss.runtime.sql.SqlWatermark;

import javax.annotation.Nullable;

/**
 * The landing folder as micro-batches of events, bronze's reader and parser ({@link
 * EventLinesFormat}), each file read once; the table's {@code WATERMARK} is Spark's {@code
 * withWatermark} on {@code event_ts}. Bad lines go to the quarantine table if one is named, else
 * nowhere (they still count as input rows).
 */
final class LandingFilesTableSource extends MicroBatchTableSource {

    private final String sqlTable;
    private final Path folder;
    private final RowType declared;
    private final int[] columns;
    @Nullable private final SqlWatermark watermark;
    @Nullable private final ReadLimit limit;
    @Nullable private final Boolean skipMissing;
    @Nullable private final String quarantine;

    LandingFilesTableSource(
            String sqlTable,
            Path folder,
            RowType declared,
            int[] columns,
            @Nullable SqlWatermark watermark,
            @Nullable ReadLimit limit,
            @Nullable Boolean skipMissing,
            @Nullable String quarantine) {
        this.sqlTable = sqlTable;
        this.folder = folder;
        this.declared = declared;
        this.columns = columns;
        this.watermark = watermark;
        this.limit = limit;
        this.skipMissing = skipMissing;
        this.quarantine = quarantine;
    }

    @Override
    protected DataStream<RowData> rows() {
        SqlSession session = SqlSession.current(LandingFilesTableFactory.IDENTIFIER);
        QueryContext query = session.context();
        FilePlanner planner = new FilePlanner(folder, ".json");
        DataStream<ParsedEvent> lines =
                query.source(
                        sqlTable,
                        "FileStreamSource[" + planner.describe() + "*.json]",
                        planner,
                        new EventLinesFormat(false),
                        watermark == null ? null : watermark.delay(),
                        limit != null ? limit : query.readLimit(),
                        skipMissing != null ? skipMissing : query.skipMissingFiles());
        SingleOutputStreamOperator<Event> good = BronzeQuery.splitBad(lines);
        if (quarantine != null) {
            query.toTable(good.getSideOutput(BronzeQuery.BAD), EventTables.quarantine(quarantine));
        }
        RowType events = EventTables.EVENT_ROW;
        DataStream<RowData> rows =
                good.map(EventTables::toRow)
                        .returns(InternalTypeInfo.of(events))
                        .name("rows of " + sqlTable)
                        .uid("sql-rows-" + sqlTable);
        DataStream<RowData> onTime =
                session.onTime(sqlTable, rows, events, events.getFieldIndex("event_ts"));
        SqlColumns.Projection projection = new SqlColumns.Projection(declared, events, columns);
        return onTime.map(projection::apply)
                .returns(InternalTypeInfo.of(declared))
                .name("columns of " + sqlTable)
                .uid("sql-columns-" + sqlTable);
    }

    @Override
    public DynamicTableSource copy() {
        return new LandingFilesTableSource(
                sqlTable, folder, declared, columns, watermark, limit, skipMissing, quarantine);
    }

    @Override
    public String asSummaryString() {
        return "LandingFiles[" + folder + "]";
    }
}
