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
 * bronze keeps everything, and loses nothing silently.
 */
public final class BronzeQuery implements Query {

    public static final String NAME = "bronze";
    public static final String TABLE = EventTables.BRONZE;
    public static final String QUARANTINE = EventTables.BRONZE + EventTables.QUARANTINE_SUFFIX;

    static final OutputTag<ParsedEvent> BAD = new OutputTag<>("bad-lines", org.apache.flink.api.common.typeinfo.TypeInformation.of(ParsedEvent.class));

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
        SingleOutputStreamOperator<Event> good = splitBad(context.eventFiles("events", events, null));
        context.toTable(good, EventTables.events(TABLE));
        context.toTable(good.getSideOutput(BAD), EventTables.quarantine(QUARANTINE));
    }

    /** Good lines as events; bad ones to the {@link #BAD} side output. */
    public static SingleOutputStreamOperator<Event> splitBad(DataStream<ParsedEvent> lines) {
        return lines.process(new ProcessFunction<ParsedEvent, Event>() {
            @Override
            public void processElement(ParsedEvent line, Context ctx, Collector<Event> out) {
                if (line.isBad()) {
                    ctx.output(BAD, line);
                } else {
                    out.collect(line.event);
                }
            }
        }).name("split-bad-lines").uid("split-bad-lines");
    }
}
