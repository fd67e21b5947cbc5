package org.flinkss.course.kafka;

import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;

import org.apache.kafka.clients.producer.ProducerRecord;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventJson;
import org.flinkss.runtime.sink.kafka.KafkaSinks;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The course's events to a Kafka topic, exactly once, through the runtime's {@link KafkaSinks} (its
 * Javadoc says the guarantee, the transactional ids and the transaction timeout): the value is the
 * event's JSON line ({@link EventJson#toJson}), the key its {@code event_id} as text (so one event
 * always lands in the same partition).
 */
public final class EventKafkaSink {

    private EventKafkaSink() {}

    /**
     * @param transactionalIdPrefix unique to one query on one checkpoint ({@link
     *     KafkaSinks#transactionalIdPrefix})
     * @param clientProperties security and other client settings; {@code transaction.timeout.ms}
     *     there overrides {@link KafkaSinks#DEFAULT_TRANSACTION_TIMEOUT}
     */
    public static KafkaSink<Event> exactlyOnce(
            String bootstrapServers,
            String topic,
            String transactionalIdPrefix,
            Map<String, String> clientProperties) {
        return KafkaSinks.exactlyOnce(
                bootstrapServers, transactionalIdPrefix, clientProperties, new EventRecords(topic));
    }

    /** One record per event: key {@code event_id} as text, value the JSON line. */
    static final class EventRecords implements KafkaRecordSerializationSchema<Event> {
        private static final long serialVersionUID = 1L;

        private final String topic;

        EventRecords(String topic) {
            this.topic = topic;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(
                Event event, KafkaSinkContext context, Long timestamp) {
            byte[] key =
                    event.eventId == null
                            ? null
                            : Long.toString(event.eventId).getBytes(StandardCharsets.UTF_8);
            return new ProducerRecord<>(
                    topic,
                    null,
                    timestamp,
                    key,
                    EventJson.toJson(event).getBytes(StandardCharsets.UTF_8));
        }
    }
}
