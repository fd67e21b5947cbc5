package org.flinkss.jobs;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import org.flinkss.event.Event;
import org.flinkss.query.Query;
import org.flinkss.query.QueryContext;
import org.flinkss.source.files.ParsedEvent;
import org.flinkss.table.EventTables;

import java.nio.file.Path;

/**
 * The course's bronze query (topics 11.03 to 11.06): the JSON files under {@code <base>/events},
 * read with the explicit event schema, appended to {@code events_bronze}. Lines that are not JSON
 * or do not fit the schema go to {@code events_bronze_quarantine} with their file, line and reason:
 * bronze keeps everything, and loses nothing silently. Files skipped because they were gone when
 * read ({@code --skip-missing-files}) are recorded in {@code events_bronze_skipped_files}.
 */
public final class BronzeQuery implements Query {

    public static final String NAME = "bronze";
    public static final String TABLE = EventTables.BRONZE;
    public static final String QUARANTINE = EventTables.BRONZE + EventTables.QUARANTINE_SUFFIX;
    public static final String SKIPPED_FILES = EventTables.BRONZE + EventTables.SKIPPED_FILES_SUFFIX;

    static final OutputTag<ParsedEvent> BAD = new OutputTag<>("bad-lines", org.apache.flink.api.common.typeinfo.TypeInformation.of(ParsedEvent.class));
    static final OutputTag<ParsedEvent> SKIPPED = new OutputTag<>("skipped-files", org.apache.flink.api.common.typeinfo.TypeInformation.of(ParsedEvent.class));

    private final Path events;

    public BronzeQuery(Path events) {
        this.events = events;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void build(QueryContext context) {
        write(context, context.eventFiles("events", events, null));
    }

    /** Bronze's tables from the lines of landing files: events, bad lines, skipped files. */
    static void write(QueryContext context, DataStream<ParsedEvent> lines) {
        SingleOutputStreamOperator<Event> good = splitBad(lines);
        context.toTable(good, EventTables.events(TABLE));
        context.toTable(good.getSideOutput(BAD), EventTables.quarantine(QUARANTINE));
        context.toSkippedFilesTable(good.getSideOutput(SKIPPED), EventTables.skippedFiles(SKIPPED_FILES, context.runId()));
    }

    /** Good lines as events; bad ones to the {@link #BAD} side output, skipped files to {@link #SKIPPED}. */
    public static SingleOutputStreamOperator<Event> splitBad(DataStream<ParsedEvent> lines) {
        return lines.process(new ProcessFunction<ParsedEvent, Event>() {
            @Override
            public void processElement(ParsedEvent line, Context ctx, Collector<Event> out) {
                if (line.isSkippedFile()) {
                    ctx.output(SKIPPED, line);
                } else if (line.isBad()) {
                    ctx.output(BAD, line);
                } else {
                    out.collect(line.event);
                }
            }
        }).name("split-bad-lines").uid("split-bad-lines");
    }
}
