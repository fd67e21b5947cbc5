package org.flinkss.course.queries;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.apache.flink.util.function.SerializableFunction;

import org.flinkss.course.event.BadLines;
import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventSources;
import org.flinkss.course.event.NewColumns;
import org.flinkss.course.event.ParsedEvent;
import org.flinkss.course.event.SchemaEvolution;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The course's bronze query (topics 11.03 to 11.06): the JSON files under {@code <base>/events},
 * read with the explicit event schema, appended to {@code events_bronze}. Lines that are not JSON
 * or do not fit the schema give the row Spark's PERMISSIVE reader gives (a value of the wrong type
 * null, a line that is not a JSON object a row of nulls, text after the object ignored: {@link
 * BadLines#PERMISSIVE}) and are recorded in {@code events_bronze_quarantine} with their file, line
 * and reason; with {@code --bad-lines quarantine-only} they go to the quarantine only. Bronze keeps
 * everything, and loses nothing silently. Files skipped because they were gone when read ({@code
 * --skip-missing-files}) are recorded in {@code events_bronze_skipped_files}.
 *
 * <p>A schema change in the source (topic 11.14): fields that are not in the schema are skipped by
 * it, as Spark's explicit schema does. With a rescued data column (Databricks Auto Loader's {@code
 * rescuedDataColumn}, {@code run bronze --rescued-data}) {@code events_bronze} has a further
 * column, {@code _rescued_data STRING}: null when a line fit the schema, else a JSON object of the
 * fields not in the schema and of the values of the wrong type (whose column is then null, where
 * without it the line goes to the quarantine), with {@code "_file_path"}; see {@link
 * org.flinkss.course.event.EventJson#parseRescued}. Lines that are not JSON objects still go to the
 * quarantine. The column is part of the checkpoint's identity: a checkpoint made with it does not
 * go on without it; one made without it goes on with it, the table gaining the column (null in the
 * rows before) in a commit of its own.
 *
 * <p>With {@code --schema-evolution add-new-columns} (Auto Loader's {@code addNewColumns}) a landed
 * top-level field the table does not have becomes a nullable column of {@code events_bronze} in the
 * commit of the batch that brought it ({@link NewColumns}; {@code QueryContext#toGrowingTable});
 * the checkpoint goes on.
 */
public final class BronzeQuery implements Query {

    public static final String NAME = QueryCatalog.BRONZE.queryName();
    public static final String TABLE = EventTables.BRONZE;
    public static final String QUARANTINE = EventTables.BRONZE + EventTables.QUARANTINE_SUFFIX;
    public static final String SKIPPED_FILES =
            EventTables.BRONZE + EventTables.SKIPPED_FILES_SUFFIX;

    public static final OutputTag<ParsedEvent> BAD =
            new OutputTag<>("bad-lines", TypeInformation.of(ParsedEvent.class));
    static final OutputTag<ParsedEvent> SKIPPED =
            new OutputTag<>("skipped-files", TypeInformation.of(ParsedEvent.class));

    private final Path events;
    private final boolean rescuedData;
    private final BadLines badLines;
    private final SchemaEvolution evolution;

    public BronzeQuery(Path events) {
        this(events, false);
    }

    /**
     * @param events the landing folder: a local one, or on an object store ({@code
     *     s3://bucket/prefix/events})
     * @param rescuedData write what the schema cannot hold to {@code _rescued_data}
     */
    public BronzeQuery(Path events, boolean rescuedData) {
        this(events, rescuedData, BadLines.PERMISSIVE);
    }

    /**
     * @param badLines what a line that is not clean gives ({@code --bad-lines})
     */
    public BronzeQuery(Path events, boolean rescuedData, BadLines badLines) {
        this(events, rescuedData, badLines, SchemaEvolution.NONE);
    }

    /**
     * @param evolution what a landed field the table does not have does ({@code
     *     --schema-evolution})
     */
    public BronzeQuery(
            Path events, boolean rescuedData, BadLines badLines, SchemaEvolution evolution) {
        this.events = events;
        this.rescuedData = rescuedData;
        this.badLines = badLines;
        this.evolution = evolution;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void build(QueryContext context) {
        if (evolution == SchemaEvolution.NONE) {
            write(
                    context,
                    EventSources.jsonFiles(context, "events", events, null, rescuedData, badLines),
                    rescuedData);
            return;
        }
        NewColumns newColumns = new NewColumns(TABLE, addedColumns(context), rescuedData);
        DataStream<ParsedEvent> lines =
                EventSources.jsonFiles(
                        context, "events", events, null, rescuedData, badLines, newColumns);
        SingleOutputStreamOperator<ParsedEvent> good =
                splitBad(lines, line -> line, TypeInformation.of(ParsedEvent.class));
        context.toGrowingTable(
                good,
                rescuedData ? EventTables.rescuedEvents(TABLE) : EventTables.parsedEvents(TABLE),
                line -> line.columns);
        writeBadLines(context, good);
    }

    /** The columns events_bronze has beyond the event columns and _rescued_data, with types. */
    private static Map<String, LogicalType> addedColumns(QueryContext context) {
        Map<String, LogicalType> added = new LinkedHashMap<>();
        if (context.warehouse().exists(TABLE)) {
            for (RowType.RowField f : context.warehouse().rowType(TABLE).getFields()) {
                if (!Event.COLUMNS.contains(f.getName())
                        && !f.getName().equals(EventTables.RESCUED_DATA)) {
                    added.put(f.getName(), f.getType());
                }
            }
        }
        return added;
    }

    /** Bronze's tables from the lines of landing files: events, bad lines, skipped files. */
    public static void write(QueryContext context, DataStream<ParsedEvent> lines) {
        write(context, lines, false);
    }

    /** The same, with the rescued data column in events_bronze if {@code rescuedData}. */
    static void write(QueryContext context, DataStream<ParsedEvent> lines, boolean rescuedData) {
        SingleOutputStreamOperator<?> split;
        if (rescuedData) {
            SingleOutputStreamOperator<ParsedEvent> good =
                    splitBad(lines, line -> line, TypeInformation.of(ParsedEvent.class));
            // Growing: a checkpoint made without the column goes on with it from the next batch.
            context.toGrowingTable(good, EventTables.rescuedEvents(TABLE), line -> null);
            split = good;
        } else {
            SingleOutputStreamOperator<Event> good = splitBad(lines);
            context.toTable(good, EventTables.events(TABLE));
            split = good;
        }
        writeBadLines(context, split);
    }

    /** The quarantine and the skipped files, from the side outputs of {@link #splitBad}. */
    private static void writeBadLines(QueryContext context, SingleOutputStreamOperator<?> split) {
        context.toTable(split.getSideOutput(BAD), EventTables.quarantine(QUARANTINE));
        context.toSkippedFilesTable(
                split.getSideOutput(SKIPPED),
                EventTables.skippedFiles(SKIPPED_FILES, context.runId()));
    }

    /**
     * Lines with a row as events (a clean line's, or Spark's row of one that is not clean); lines
     * that are not clean also to the {@link #BAD} side output; skipped files to {@link #SKIPPED}.
     */
    public static SingleOutputStreamOperator<Event> splitBad(DataStream<ParsedEvent> lines) {
        return splitBad(lines, line -> line.event, TypeInformation.of(Event.class));
    }

    private static <T> SingleOutputStreamOperator<T> splitBad(
            DataStream<ParsedEvent> lines,
            SerializableFunction<ParsedEvent, T> good,
            TypeInformation<T> type) {
        return lines.process(
                        new ProcessFunction<ParsedEvent, T>() {
                            @Override
                            public void processElement(
                                    ParsedEvent line, Context ctx, Collector<T> out) {
                                if (line.isSkippedFile()) {
                                    ctx.output(SKIPPED, line);
                                    return;
                                }
                                if (line.isQuarantined()) {
                                    ctx.output(BAD, line);
                                }
                                if (line.event != null) {
                                    out.collect(good.apply(line));
                                }
                            }
                        })
                .returns(type)
                .name("split-bad-lines")
                .uid("split-bad-lines");
    }
}
