package org.flinkss.course.queries;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventJson;
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
 * Values that are not UTF-8 text, not JSON or do not fit the schema go to {@code
 * kafka_events_quarantine} with their topic, partition, offset and the reason.
 */
public final class KafkaEventsQuery implements Query {

    public static final String NAME = QueryCatalog.KAFKA_EVENTS.queryName();
    public static final String TABLE = KafkaTables.EVENTS;
    public static final String QUARANTINE = KafkaTables.EVENTS_QUARANTINE;

    /** Longest raw text kept in the quarantine for one value. */
    static final int MAX_RAW = 64 * 1024;

    static final OutputTag<BadValue> BAD =
            new OutputTag<>("bad-values", TypeInformation.of(BadValue.class));

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void build(QueryContext context) {
        SingleOutputStreamOperator<Event> events =
                parse(context.tableStream(KafkaTables.BRONZE, null, null));
        context.toTable(events, EventTables.events(TABLE));
        context.toTable(events.getSideOutput(BAD), KafkaTables.quarantine(QUARANTINE));
    }

    /**
     * Rows of {@code kafka_bronze} to events; values that are not events to the {@link #BAD} side
     * output.
     */
    public static SingleOutputStreamOperator<Event> parse(DataStream<RowData> bronze) {
        return bronze.process(
                        new ProcessFunction<RowData, Event>() {
                            @Override
                            public void processElement(
                                    RowData row, Context ctx, Collector<Event> out) {
                                String topic = row.getString(KafkaTables.TOPIC).toString();
                                int partition = row.getInt(KafkaTables.PARTITION);
                                long offset = row.getLong(KafkaTables.OFFSET);
                                if (row.isNullAt(KafkaTables.VALUE)) {
                                    ctx.output(
                                            BAD,
                                            new BadValue(
                                                    topic,
                                                    partition,
                                                    offset,
                                                    null,
                                                    "value is null"));
                                    return;
                                }
                                String text;
                                try {
                                    text =
                                            StandardCharsets.UTF_8
                                                    .newDecoder()
                                                    .onMalformedInput(CodingErrorAction.REPORT)
                                                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                                                    .decode(
                                                            ByteBuffer.wrap(
                                                                    row.getBinary(
                                                                            KafkaTables.VALUE)))
                                                    .toString();
                                } catch (CharacterCodingException e) {
                                    ctx.output(
                                            BAD,
                                            new BadValue(
                                                    topic,
                                                    partition,
                                                    offset,
                                                    null,
                                                    "value is not UTF-8 text"));
                                    return;
                                }
                                try {
                                    out.collect(EventJson.parse(text));
                                } catch (EventParseException e) {
                                    String raw =
                                            text.length() > MAX_RAW
                                                    ? text.substring(0, MAX_RAW)
                                                    : text;
                                    ctx.output(
                                            BAD,
                                            new BadValue(
                                                    topic, partition, offset, raw, e.getMessage()));
                                }
                            }
                        })
                .name("parse-kafka-values")
                .uid("parse-kafka-values");
    }
}
