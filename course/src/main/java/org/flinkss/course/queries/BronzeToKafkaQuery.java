package org.flinkss.course.queries;

import org.apache.flink.streaming.api.datastream.DataStream;

import org.flinkss.course.event.Event;
import org.flinkss.course.kafka.EventKafkaSink;
import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.sink.kafka.KafkaSinks;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;

import java.util.HashMap;
import java.util.Map;

/**
 * {@code events_bronze} as a stream, each event as a JSON line (key {@code event_id}) into a topic,
 * exactly once, with Flink's transactional {@code KafkaSink} (see {@link EventKafkaSink} for the
 * guarantee and the transaction timeout). A {@code read_committed} consumer of the topic sees every
 * event of the table once, across kills and reruns.
 */
public final class BronzeToKafkaQuery implements Query {

    public static final String NAME = QueryCatalog.BRONZE_TO_KAFKA.queryName();

    private final String bootstrapServers;
    private final String topic;
    private final HashMap<String, String> clientProperties;

    public BronzeToKafkaQuery(
            String bootstrapServers, String topic, Map<String, String> clientProperties) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException(
                    "query '"
                            + NAME
                            + "' needs --bootstrap-servers H:P (or bootstrap.servers in the Kafka"
                            + " properties file)");
        }
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException(
                    "query '" + NAME + "' needs --topic T: the topic to write to");
        }
        KafkaSourceOptions.checkBootstrapServers(bootstrapServers);
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
        this.clientProperties = new HashMap<>(clientProperties);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void build(QueryContext context) {
        DataStream<Event> events =
                context.tableStream(EventTables.BRONZE, null, null)
                        .map(EventTables::fromRow)
                        .returns(Event.class)
                        .name("events-from-bronze")
                        .uid("events-from-bronze");
        String prefix = KafkaSinks.transactionalIdPrefix(NAME, context.scope());
        // The sink's name carries the topic: another topic is another query, with its own
        // checkpoint.
        context.toSink(
                events,
                "kafka-" + topic,
                "KafkaSink[" + topic + "]",
                EventKafkaSink.exactlyOnce(bootstrapServers, topic, prefix, clientProperties));
    }
}
