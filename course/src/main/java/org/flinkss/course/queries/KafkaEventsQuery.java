package org.flinkss.course.queries;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import org.flinkss.course.event.BadLines;
import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventJson;
import org.flinkss.course.event.EventLinesFormat;
import org.flinkss.course.event.EventParseException;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.source.kafka.KafkaTables;
import org.flinkss.runtime.source.kafka.KafkaTables.BadValue;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * {@code kafka_bronze} as a stream, its {@code value} parsed with the course's event schema
 * (Spark's {@code from_json(col("value").cast("string"), schema)}), into {@code kafka_events}.
 * Values that are not UTF-8 text, not JSON or do not fit the schema are recorded in {@code
 * kafka_events_quarantine} with their topic, partition, offset and the reason; {@code kafka_events}
 * holds what Spark's {@code from_json} (PERMISSIVE) gives for them, measured on Spark 4.0.4: a
 * value of the wrong type null and the others read, text after the object ignored, and a row of
 * nulls for anything that is not one JSON object (a null or blank value, an array, not JSON). With
 * {@link BadLines#QUARANTINE_ONLY} they go to the quarantine only.
 */
public final class KafkaEventsQuery implements Query {

    public static final String NAME = QueryCatalog.KAFKA_EVENTS.queryName();
    public static final String TABLE = KafkaTables.EVENTS;
    public static final String QUARANTINE = KafkaTables.EVENTS_QUARANTINE;

    /** Longest raw text kept in the quarantine for one value. */
    static final int MAX_RAW = 64 * 1024;

    static final OutputTag<BadValue> BAD =
            new OutputTag<>("bad-values", TypeInformation.of(BadValue.class));

    private final BadLines badLines;

    public KafkaEventsQuery() {
        this(BadLines.PERMISSIVE);
    }

    public KafkaEventsQuery(BadLines badLines) {
        this.badLines = badLines;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void build(QueryContext context) {
        SingleOutputStreamOperator<Event> events =
                parse(context.tableStream(KafkaTables.BRONZE, null, null), badLines);
        context.toTable(events, EventTables.events(TABLE));
        context.toTable(events.getSideOutput(BAD), KafkaTables.quarantine(QUARANTINE));
    }

    /**
     * Rows of {@code kafka_bronze} to events; values that are not events to the {@link #BAD} side
     * output.
     */
    public static SingleOutputStreamOperator<Event> parse(DataStream<RowData> bronze) {
        return parse(bronze, BadLines.QUARANTINE_ONLY);
    }

    /**
     * Rows of {@code kafka_bronze} to events; values that are not clean to the {@link #BAD} side
     * output too, with the row Spark's {@code from_json} gives for them, or, with {@link
     * BadLines#QUARANTINE_ONLY}, only there.
     */
    public static SingleOutputStreamOperator<Event> parse(
            DataStream<RowData> bronze, BadLines badLines) {
        return bronze.process(new ValueParser(badLines == BadLines.PERMISSIVE))
                .name("parse-kafka-values")
                .uid("parse-kafka-values");
    }

    private static final class ValueParser extends ProcessFunction<RowData, Event> {
        private static final long serialVersionUID = 1L;

        private final boolean permissive;

        ValueParser(boolean permissive) {
            this.permissive = permissive;
        }

        @Override
        public void processElement(RowData row, Context ctx, Collector<Event> out) {
            String topic = row.getString(KafkaTables.TOPIC).toString();
            int partition = row.getInt(KafkaTables.PARTITION);
            long offset = row.getLong(KafkaTables.OFFSET);
            String text = null;
            String problem;
            Event event = new Event();
            if (row.isNullAt(KafkaTables.VALUE)) {
                problem = "value is null";
            } else {
                try {
                    text =
                            StandardCharsets.UTF_8
                                    .newDecoder()
                                    .onMalformedInput(CodingErrorAction.REPORT)
                                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                                    .decode(ByteBuffer.wrap(row.getBinary(KafkaTables.VALUE)))
                                    .toString();
                    problem = null;
                } catch (CharacterCodingException e) {
                    problem = "value is not UTF-8 text";
                }
            }
            if (text != null && !permissive) {
                try {
                    out.collect(EventJson.parse(text));
                    return;
                } catch (EventParseException e) {
                    problem = e.getMessage();
                }
            } else if (text != null) {
                if (text.isBlank()) {
                    problem = "empty value";
                } else if (EventLinesFormat.isArray(text)) {
                    // from_json reads one object: an array of them is a row of nulls.
                    problem = "a JSON array, not one object";
                } else {
                    EventJson.Lenient read = EventJson.parseLenient(text, null);
                    event = read.event;
                    problem = read.problem;
                }
            }
            if (permissive) {
                out.collect(event);
            }
            if (problem != null) {
                String raw =
                        text == null || text.length() <= MAX_RAW
                                ? text
                                : text.substring(0, MAX_RAW);
                ctx.output(BAD, new BadValue(topic, partition, offset, raw, problem));
            }
        }
    }
}
