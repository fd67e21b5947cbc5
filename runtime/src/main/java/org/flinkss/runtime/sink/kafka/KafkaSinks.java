package org.flinkss.runtime.sink.kafka;

import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;

import org.apache.kafka.clients.producer.ProducerConfig;

import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.source.kafka.KafkaClientProperties;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * A query's records to a Kafka topic with Flink's {@link KafkaSink}, exactly once; what a record
 * looks like (its key, value and topic) is the caller's {@link KafkaRecordSerializationSchema}.
 *
 * <p><b>Guarantee.</b> {@link DeliveryGuarantee#EXACTLY_ONCE}: each subtask writes inside a Kafka
 * transaction that is committed only when the checkpoint containing it completes. A {@code
 * read_committed} consumer sees every record once, whatever kills and restarts happen; a {@code
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
 * may stay down after a failure without losing the records of its last checkpoint. The broker also
 * refuses a producer whose timeout exceeds its {@code transaction.max.timeout.ms} (15 minutes by
 * default, Event Hubs and MSK included), and Flink's own default (1 hour) is above it. Hence {@link
 * #DEFAULT_TRANSACTION_TIMEOUT} of 10 minutes, below the broker's default ceiling; set {@code
 * transaction.timeout.ms} in the Kafka properties to change it, within that ceiling. While a killed
 * job's transaction is open, {@code read_committed} consumers of the topic wait at its first
 * offset: restart the job (it aborts the leftovers at once) or wait for the timeout.
 */
public final class KafkaSinks {

    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(10);

    private KafkaSinks() {}

    /**
     * @param clientProperties security and other client settings ({@link KafkaClientProperties});
     *     {@code transaction.timeout.ms} there overrides the default
     * @param records what each record of the stream becomes in the topic
     */
    public static <T> KafkaSink<T> exactlyOnce(
            String bootstrapServers,
            String transactionalIdPrefix,
            Map<String, String> clientProperties,
            KafkaRecordSerializationSchema<T> records) {
        Properties producer = new Properties();
        producer.putAll(clientProperties);
        producer.putIfAbsent(
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                Long.toString(DEFAULT_TRANSACTION_TIMEOUT.toMillis()));
        return KafkaSink.<T>builder()
                .setBootstrapServers(bootstrapServers)
                .setKafkaProducerConfig(producer)
                .setRecordSerializer(records)
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(transactionalIdPrefix)
                .build();
    }

    /**
     * {@code flinkss-<query>-<8 hex digits of the checkpoint directory>}: one query, one
     * checkpoint. The digits hash the directory as messages name it ({@link RunScope#checkpoint}):
     * a local folder's absolute path, or the URI of one on an object store, as every earlier
     * version did (a prefix that changed would leave a killed run's transactions open).
     */
    public static String transactionalIdPrefix(String queryName, RunScope scope) {
        return "flinkss-" + queryName + "-" + String.format("%08x", scope.checkpoint().hashCode());
    }
}
