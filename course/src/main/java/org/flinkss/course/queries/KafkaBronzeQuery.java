package org.flinkss.course.queries;

import org.apache.flink.streaming.api.datastream.DataStream;

import org.flinkss.runtime.query.Query;
import org.flinkss.runtime.query.QueryContext;
import org.flinkss.runtime.source.kafka.KafkaPlanner;
import org.flinkss.runtime.source.kafka.KafkaRecord;
import org.flinkss.runtime.source.kafka.KafkaRecordFormat;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.source.kafka.KafkaTables;

/**
 * Course topic 11.12: a topic's raw records, landed first and unparsed, in {@code kafka_bronze}
 * ({@code key, value} as bytes, {@code topic, partition, offset, timestamp, timestampType}), so
 * that parsing can be fixed and replayed from bronze without going back to Kafka, whose retention
 * may have dropped the records by then. Each run reads the offsets that exist at its start and
 * continues where the last committed run stopped; the offsets live in the checkpoint.
 */
public final class KafkaBronzeQuery implements Query {

    public static final String NAME = QueryCatalog.KAFKA_BRONZE.queryName();
    public static final String TABLE = KafkaTables.BRONZE;

    private final KafkaSourceOptions kafka;

    public KafkaBronzeQuery(KafkaSourceOptions kafka) {
        this.kafka = kafka;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void build(QueryContext context) {
        DataStream<KafkaRecord> records =
                context.source(
                        "kafka",
                        kafka.description(),
                        new KafkaPlanner(kafka),
                        new KafkaRecordFormat(kafka, "flinkss-" + NAME),
                        null);
        context.toTable(records, KafkaTables.bronze(TABLE));
    }
}
