package org.flinkss.course.sql;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.course.tables.EventTables;
import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.kafka.KafkaSourceOptions;
import org.flinkss.runtime.sql.MicroBatchConnector;
import org.flinkss.runtime.sql.SqlColumns;
import org.flinkss.runtime.sql.SqlOptions;
import org.flinkss.runtime.sql.SqlTableException;
import org.flinkss.runtime.sql.SqlWatermark;

import java.util.Set;

/**
 * {@code 'connector' = 'kafka'} in {@code sql --file}: Flink's Kafka connector options, read in
 * micro-batches by the runtime's Kafka source as {@code run kafka-bronze} reads a topic (Spark's
 * Kafka source: the offsets of record in the query's checkpoint, an available-now run bounded at
 * the offsets found at its start, records of aborted transactions skipped). It takes the place of
 * Flink's own factory in {@code sql --file} only ({@link MicroBatchConnector}); {@link
 * KafkaTableOptions} says which options mean what.
 */
public final class KafkaTableFactory implements MicroBatchConnector {

    public static final String IDENTIFIER = "kafka";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(KafkaTableOptions.BOOTSTRAP_SERVERS);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return KafkaTableOptions.OPTIONAL;
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        String sqlTable = context.getObjectIdentifier().getObjectName();
        KafkaTableOptions.refuseUnsupported(sqlTable, context.getCatalogTable().getOptions());
        ReadableConfig options =
                SqlOptions.validated(
                        FactoryUtil.createTableFactoryHelper(this, context),
                        sqlTable,
                        KafkaTableOptions.PROPERTIES_PREFIX);
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        RowType physical = (RowType) schema.toPhysicalRowDataType().getLogicalType().copy(true);
        KafkaRowFormat.Value value = KafkaTableOptions.value(sqlTable, options);
        KafkaSourceOptions kafka =
                KafkaTableOptions.source(
                        sqlTable,
                        options,
                        KafkaTableOptions.clientProperties(
                                context.getCatalogTable().getOptions(), System.getenv()));
        int[] eventColumns = null;
        if (value == KafkaRowFormat.Value.JSON) {
            eventColumns =
                    SqlColumns.match(
                            sqlTable,
                            physical,
                            EventTables.EVENT_ROW,
                            "the course's events (format 'json')");
        } else {
            value = rawColumn(sqlTable, physical);
        }
        return new KafkaTableSource(
                sqlTable,
                kafka,
                value,
                schema,
                physical,
                eventColumns,
                SqlWatermark.of(sqlTable, schema).orElse(null),
                options.getOptional(KafkaTableOptions.MAX_OFFSETS_PER_TRIGGER)
                        .map(n -> ReadLimit.none().withMaxOffsetsPerTrigger(n))
                        .orElse(null),
                options.getOptional(KafkaTableOptions.QUARANTINE_TABLE).orElse(null));
    }

    /** Flink's {@code raw} format: one physical column, STRING (UTF-8) or BYTES. */
    private static KafkaRowFormat.Value rawColumn(String sqlTable, RowType physical) {
        if (physical.getFieldCount() == 1) {
            if (physical.getTypeAt(0).is(LogicalTypeRoot.VARCHAR)
                    || physical.getTypeAt(0).is(LogicalTypeRoot.CHAR)) {
                return KafkaRowFormat.Value.RAW_STRING;
            }
            if (physical.getTypeAt(0).is(LogicalTypeRoot.VARBINARY)
                    || physical.getTypeAt(0).is(LogicalTypeRoot.BINARY)) {
                return KafkaRowFormat.Value.RAW_BYTES;
            }
        }
        throw new SqlTableException(
                sqlTable,
                "table '"
                        + sqlTable
                        + "' has format 'raw', which reads the value into one column of type"
                        + " STRING or BYTES; it declares "
                        + (physical.getFieldCount() == 0 ? "none" : SqlColumns.describe(physical))
                        + " (metadata columns aside)");
    }
}
