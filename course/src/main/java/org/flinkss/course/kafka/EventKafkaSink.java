package org.flinkss.course.kafka;

import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventJson;
import org.flinkss.runtime.kafka.KafkaClientProperties;
import org.flinkss.runtime.progress.RunScope;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * Events to a Kafka topic with Flink's {@link KafkaSink}, exactly once: the value is the event's
 * JSON line ({@link EventJson#toJson}), the key its {@code event_id} as text (so one event always
 * lands in the same partition).
 *
 * <p><b>Guarantee.</b> {@link DeliveryGuarantee#EXACTLY_ONCE}: each subtask writes inside a Kafka
 * transaction that is committed only when the checkpoint containing it completes. A {@code
 * read_committed} consumer sees every event once, whatever kills and restarts happen; a {@code
 * read_uncommitted} one may also see records of aborted transactions.
 *
 * <p><b>Transactional ids.</b> Their prefix must be unique to one query on one checkpoint: on
 * restart, the sink aborts the transactions its prefix left open, and two jobs with the same prefix
 * would fence each other. {@link #transactionalIdPrefix} derives it from the query's name and
 * checkpoint directory.
 *
 * <p><b>Pitfall: {@code transaction.timeout.ms}.</b> A transaction stays open from one checkpoint
 * to the next, and a prepared one waits for the commit that follows its checkpoint; if the job dies
 * in between, the restarted job commits it from the checkpoint. The broker aborts any transaction
 * older than the producer's {@code transaction.timeout.ms}, so that timeout bounds how long a job
 * may stay down after a failure without losing the events of its last checkpoint. The broker also
 * refuses a producer whose timeout exceeds its {@code transaction.max.timeout.ms} (15 minutes by
 * default, Event Hubs and MSK included), and Flink's own default (1 hour) is above it. Hence {@link
 * #DEFAULT_TRANSACTION_TIMEOUT} of 10 minutes, below the broker's default ceiling; set {@code
 * transaction.timeout.ms} in the Kafka properties to change it, within that ceiling. While a killed
 * job's transaction is open, {@code read_committed} consumers of the topic wait at its first
 * offset: restart the job (it aborts the leftovers at once) or wait for the timeout.
 */
public final class EventKafkaSink {

    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(10);

    private EventKafkaSink() {}

    /**
     * @param clientProperties security and other client settings ({@link KafkaClientProperties});
     *     {@code transaction.timeout.ms} there overrides the default
     */
    public static KafkaSink<Event> exactlyOnce(
            String bootstrapServers,
            String topic,
            String transactionalIdPrefix,
            Map<String, String> clientProperties) {
        Properties producer = new Properties();
        producer.putAll(clientProperties);
        producer.putIfAbsent(
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                Long.toString(DEFAULT_TRANSACTION_TIMEOUT.toMillis()));
        return KafkaSink.<Event>builder()
                .setBootstrapServers(bootstrapServers)
                .setKafkaProducerConfig(producer)
                .setRecordSerializer(new EventRecords(topic))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(transactionalIdPrefix)
                .build();
    }

    /**
     * {@code flinkss-<query>-<8 hex digits of the checkpoint directory>}: one query, one
     * checkpoint.
     */
    public static String transactionalIdPrefix(String queryName, Path checkpointDir) {
        String path = checkpointDir.toAbsolutePath().normalize().toString();
        return "flinkss-" + queryName + "-" + String.format("%08x", path.hashCode());
    }

    /**
     * {@link #transactionalIdPrefix(String, Path)} of the checkpoint of run {@code scope},
     * anywhere: a local one gives the same prefix as its folder, one on an object store hashes its
     * URI.
     */
    public static String transactionalIdPrefix(String queryName, RunScope scope) {
        return "flinkss-" + queryName + "-" + String.format("%08x", scope.checkpoint().hashCode());
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
