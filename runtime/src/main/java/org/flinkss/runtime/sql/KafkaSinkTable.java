package org.flinkss.runtime.sql;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.connector.sink.abilities.SupportsWritingMetadata;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

import org.flinkss.runtime.sink.kafka.KafkaSinks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@code 'connector' = 'kafka'} or {@code 'upsert-kafka'} table written by {@code sql --file}
 * (update mode: each change of a key, the key's last value wins): Flink's Kafka table sink, with
 * the defaults of the project's Kafka sink ({@code KafkaSinks}) where the table sets none: {@code
 * 'sink.delivery-guarantee' = 'exactly-once'} (records in Kafka transactions committed with the
 * query's checkpoints), a transactional id prefix unique to the query, its checkpoint and the
 * table, and a transaction timeout of 10 minutes, below a broker's default ceiling of 15. A table
 * may say {@code 'sink.delivery-guarantee' = 'at-least-once'}: records are then visible to every
 * reader as soon as they are written, and a failure may write some twice.
 *
 * <p>Its rows are counted in the query's progress, as every sink of a query is ({@code
 * QueryContext#toSink}): a batch is recorded once every sink has reported its rows.
 */
@Internal
final class KafkaSinkTable implements DynamicTableSink, SupportsWritingMetadata {

    static final String CONNECTOR = "kafka";

    /** Flink's Kafka table sinks: a topic of records, and one of upserts by the table's key. */
    static final Set<String> CONNECTORS = Set.of(CONNECTOR, "upsert-kafka");

    static final String DELIVERY_GUARANTEE = "sink.delivery-guarantee";
    static final String TRANSACTIONAL_ID_PREFIX = "sink.transactional-id-prefix";
    static final String TRANSACTION_TIMEOUT = "properties.transaction.timeout.ms";

    /** The DataStream sinks' default ({@link KafkaSinks#DEFAULT_TRANSACTION_TIMEOUT}). */
    static final String DEFAULT_TRANSACTION_TIMEOUT_MS =
            String.valueOf(KafkaSinks.DEFAULT_TRANSACTION_TIMEOUT.toMillis());

    private final DynamicTableSink kafka;
    private final String table;
    private final String description;

    KafkaSinkTable(DynamicTableSink kafka, String table, String description) {
        this.kafka = kafka;
        this.table = table;
        this.description = description;
    }

    /** The table's options with the project's defaults where it sets none. */
    static ResolvedCatalogTable withDefaults(
            ResolvedCatalogTable table, String transactionalIdPrefix, String tableName) {
        Map<String, String> options = new HashMap<>(table.getOptions());
        options.putIfAbsent(DELIVERY_GUARANTEE, "exactly-once");
        options.putIfAbsent(TRANSACTIONAL_ID_PREFIX, transactionalIdPrefix + "-" + tableName);
        options.putIfAbsent(TRANSACTION_TIMEOUT, DEFAULT_TRANSACTION_TIMEOUT_MS);
        return table.copy(options);
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        return kafka.getChangelogMode(requestedMode);
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        SinkRuntimeProvider provider = kafka.getSinkRuntimeProvider(context);
        if (!(provider instanceof SinkV2Provider v2)) {
            return provider;
        }
        Sink<RowData> sink = v2.createSink();
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(
                    ProviderContext providerContext, DataStream<RowData> rows) {
                return SqlSession.current(CONNECTOR)
                        .context()
                        .toSink(rows, table, description, sink);
            }
        };
    }

    /** The record's timestamp or headers as columns, as Flink's Kafka sink writes them. */
    @Override
    public Map<String, DataType> listWritableMetadata() {
        return kafka instanceof SupportsWritingMetadata metadata
                ? metadata.listWritableMetadata()
                : Map.of();
    }

    @Override
    public void applyWritableMetadata(List<String> metadataKeys, DataType consumedDataType) {
        if (kafka instanceof SupportsWritingMetadata metadata) {
            metadata.applyWritableMetadata(metadataKeys, consumedDataType);
        }
    }

    @Override
    public DynamicTableSink copy() {
        return new KafkaSinkTable(kafka.copy(), table, description);
    }

    @Override
    public String asSummaryString() {
        return kafka.asSummaryString();
    }
}
