package org.flinkss.course.tables;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.ParsedEvent;
import org.flinkss.runtime.operators.LateRow;
import org.flinkss.runtime.table.TableDef;

import java.time.ZoneOffset;
import java.util.List;

/** The tables of events: bronze, its quarantine and its record of skipped files. */
public final class EventTables {

    public static final String BRONZE = "events_bronze";
    public static final String QUARANTINE_SUFFIX = "_quarantine";
    public static final String SKIPPED_FILES_SUFFIX = "_skipped_files";

    /** A stateful query's table of the rows its watermark dropped: {@code <table>_late}. */
    public static final String LATE_SUFFIX = "_late";

    /**
     * The precision of {@code event_ts}: microseconds, as Spark's {@code TIMESTAMP} (issue 13 point
     * 6). Watermarks stay milliseconds, as Flink's and Spark's.
     */
    public static final int EVENT_TS_PRECISION = 6;

    /** {@code event_id LONG, user_id INT, event_type STRING, event_ts TIMESTAMP, amount DOUBLE}. */
    public static final RowType EVENT_ROW =
            TableDef.columns(
                    Event.COLUMNS,
                    new BigIntType(),
                    new IntType(),
                    VarCharType.STRING_TYPE,
                    new LocalZonedTimestampType(EVENT_TS_PRECISION),
                    new DoubleType());

    /** The column of what a line held that the schema could not, Auto Loader's name for it. */
    public static final String RESCUED_DATA = "_rescued_data";

    /**
     * {@link #EVENT_ROW} and {@code _rescued_data STRING}: bronze with a rescued data column. The
     * event columns come first, so {@link #fromRow} reads both.
     */
    public static final RowType RESCUED_EVENT_ROW =
            TableDef.columns(
                    List.of(
                            "event_id",
                            "user_id",
                            "event_type",
                            "event_ts",
                            "amount",
                            RESCUED_DATA),
                    new BigIntType(),
                    new IntType(),
                    VarCharType.STRING_TYPE,
                    new LocalZonedTimestampType(EVENT_TS_PRECISION),
                    new DoubleType(),
                    VarCharType.STRING_TYPE);

    /** Where a bad line was, what it said, and why it was refused. */
    public static final RowType QUARANTINE_ROW =
            TableDef.columns(
                    List.of("file", "line", "raw", "reason"),
                    VarCharType.STRING_TYPE,
                    new BigIntType(),
                    VarCharType.STRING_TYPE,
                    VarCharType.STRING_TYPE);

    /**
     * A landing file that was gone when read, skipped ({@code --skip-missing-files}): which, in
     * which batch, why, when, by which run.
     */
    public static final RowType SKIPPED_FILE_ROW =
            TableDef.columns(
                    List.of("file", "batch_id", "reason", "skipped_at", "run_id"),
                    VarCharType.STRING_TYPE,
                    new BigIntType(),
                    VarCharType.STRING_TYPE,
                    new LocalZonedTimestampType(3),
                    VarCharType.STRING_TYPE);

    /** A late row of a stateful query: the event, the watermark it missed, why, and the run. */
    public static final RowType LATE_ROW =
            TableDef.columns(
                    List.of(
                            "event_id",
                            "user_id",
                            "event_type",
                            "event_ts",
                            "amount",
                            "watermark",
                            "reason",
                            "run_id"),
                    new BigIntType(),
                    new IntType(),
                    VarCharType.STRING_TYPE,
                    new LocalZonedTimestampType(EVENT_TS_PRECISION),
                    new DoubleType(),
                    new LocalZonedTimestampType(3),
                    VarCharType.STRING_TYPE,
                    VarCharType.STRING_TYPE);

    /**
     * Windowed tables: {@code window_start, window_end, <key>, events, amount}, the window's bounds
     * in milliseconds (fixed windows: whole minutes).
     */
    public static RowType windowRow(String keyColumn, LogicalType keyType) {
        return windowRow(keyColumn, keyType, 3);
    }

    /**
     * Windowed tables with the bounds at {@code precision}: 6 (microseconds) for sessions, which
     * start and end at an event's microsecond as Spark's do.
     */
    public static RowType windowRow(String keyColumn, LogicalType keyType, int precision) {
        return TableDef.columns(
                List.of("window_start", "window_end", keyColumn, "events", "amount"),
                new LocalZonedTimestampType(precision),
                new LocalZonedTimestampType(precision),
                keyType,
                new BigIntType(),
                new DoubleType());
    }

    private EventTables() {}

    public static TableDef<LateRow<Event>> late(String name, String runId) {
        return new TableDef<>(
                name,
                LATE_ROW,
                late -> {
                    Event e = late.row;
                    return GenericRowData.of(
                            e.eventId,
                            e.userId,
                            e.eventType == null ? null : StringData.fromString(e.eventType),
                            e.eventTs == null ? null : TimestampData.fromInstant(e.eventTs),
                            e.amount,
                            late.watermark == Long.MIN_VALUE
                                    ? null
                                    : TimestampData.fromEpochMillis(late.watermark),
                            StringData.fromString(late.reason),
                            StringData.fromString(runId));
                });
    }

    /**
     * A stream of events as a Table API table that keeps the stream's timestamps and watermarks: a
     * {@code rowtime} column from each record's timestamp, with {@code SOURCE_WATERMARK()}. SQL
     * windows, joins and process table functions then obey the micro-batch watermark.
     */
    public static Table withSourceWatermark(StreamTableEnvironment tEnv, DataStream<Event> events) {
        tEnv.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        return tEnv.fromDataStream(
                events,
                Schema.newBuilder()
                        .columnByMetadata("rowtime", DataTypes.TIMESTAMP_LTZ(3))
                        .watermark("rowtime", "SOURCE_WATERMARK()")
                        .build());
    }

    /** A table of rows that are already {@link RowData}. */
    public static TableDef<RowData> rows(String name, RowType rowType) {
        return new TableDef<>(name, rowType, row -> row);
    }

    public static TableDef<Event> events(String name) {
        return new TableDef<>(name, EVENT_ROW, EventTables::toRow);
    }

    /** Good lines as their events, for a table whose further columns grow with the lines. */
    public static TableDef<ParsedEvent> parsedEvents(String name) {
        return new TableDef<>(name, EVENT_ROW, line -> toRow(line.event));
    }

    /** Good lines with what was rescued from them: {@link #RESCUED_EVENT_ROW}. */
    public static TableDef<ParsedEvent> rescuedEvents(String name) {
        return new TableDef<>(name, RESCUED_EVENT_ROW, EventTables::toRescuedRow);
    }

    public static TableDef<ParsedEvent> quarantine(String name) {
        return new TableDef<>(name, QUARANTINE_ROW, EventTables::toQuarantineRow);
    }

    /**
     * Skipped files; {@code skipped_at} is when the record is written, {@code run_id} the run that
     * skipped it.
     */
    public static TableDef<ParsedEvent> skippedFiles(String name, String runId) {
        return new TableDef<>(
                name,
                SKIPPED_FILE_ROW,
                skipped -> toSkippedFileRow(skipped, runId, System.currentTimeMillis()));
    }

    public static RowData toSkippedFileRow(
            ParsedEvent skipped, String runId, long skippedAtMillis) {
        return GenericRowData.of(
                StringData.fromString(skipped.file),
                skipped.skippedInBatch,
                StringData.fromString(skipped.reason),
                TimestampData.fromEpochMillis(skippedAtMillis),
                StringData.fromString(runId));
    }

    public static RowData toRow(Event e) {
        return eventRow(e, EVENT_ROW.getFieldCount());
    }

    public static RowData toRescuedRow(ParsedEvent line) {
        GenericRowData row = eventRow(line.event, RESCUED_EVENT_ROW.getFieldCount());
        row.setField(5, line.rescuedData == null ? null : StringData.fromString(line.rescuedData));
        return row;
    }

    /** A row of {@code arity} columns, the event's in the first five. */
    private static GenericRowData eventRow(Event e, int arity) {
        GenericRowData row = new GenericRowData(arity);
        row.setField(0, e.eventId);
        row.setField(1, e.userId);
        row.setField(2, e.eventType == null ? null : StringData.fromString(e.eventType));
        row.setField(3, e.eventTs == null ? null : TimestampData.fromInstant(e.eventTs));
        row.setField(4, e.amount);
        return row;
    }

    /**
     * The event of a row whose first five columns are {@link #EVENT_ROW}'s ({@code event_ts} of
     * precision {@link #EVENT_TS_PRECISION}, as table streams read it): further columns, such as
     * {@link #RESCUED_DATA}, are not read.
     */
    public static Event fromRow(RowData row) {
        if (row instanceof GenericRowData) {
            // The table readers' rows: their boxed numbers go into the event as they are, not
            // unboxed and boxed again (an allocation per column and row saved).
            GenericRowData fields = (GenericRowData) row;
            return new Event(
                    (Long) fields.getField(0),
                    (Integer) fields.getField(1),
                    row.isNullAt(2) ? null : row.getString(2).toString(),
                    row.isNullAt(3) ? null : row.getTimestamp(3, EVENT_TS_PRECISION).toInstant(),
                    (Double) fields.getField(4));
        }
        return new Event(
                row.isNullAt(0) ? null : row.getLong(0),
                row.isNullAt(1) ? null : row.getInt(1),
                row.isNullAt(2) ? null : row.getString(2).toString(),
                row.isNullAt(3) ? null : row.getTimestamp(3, EVENT_TS_PRECISION).toInstant(),
                row.isNullAt(4) ? null : row.getDouble(4));
    }

    public static RowData toQuarantineRow(ParsedEvent bad) {
        return GenericRowData.of(
                StringData.fromString(bad.file),
                bad.line,
                StringData.fromString(bad.raw),
                StringData.fromString(bad.reason));
    }
}
