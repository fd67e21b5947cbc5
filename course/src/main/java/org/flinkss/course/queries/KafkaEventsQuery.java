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
import org.flinkss.course.event.EventValues;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.source.kafka.KafkaTables;
import org.flinkss.runtime.source.kafka.KafkaTables.BadValue;

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
            EventValues.Read read =
                    EventValues.read(
                            row.isNullAt(KafkaTables.VALUE)
                                    ? null
                                    : row.getBinary(KafkaTables.VALUE),
                            permissive);
            if (read.event() != null) {
                out.collect(read.event());
            }
            if (read.problem() != null) {
                ctx.output(
                        BAD,
                        new BadValue(
                                row.getString(KafkaTables.TOPIC).toString(),
                                row.getInt(KafkaTables.PARTITION),
                                row.getLong(KafkaTables.OFFSET),
                                read.raw(),
                                read.problem()));
            }
        }
    }
}
