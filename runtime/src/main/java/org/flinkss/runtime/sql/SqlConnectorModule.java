package org.flinkss.runtime.sql;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.module.Module;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The module a {@code sql --file} run loads into its table environment so that its {@link
 * MicroBatchConnector}s win over Flink's factories of the same identifier. Flink's planner asks the
 * loaded modules for a table's factory before it discovers one by the table's {@code 'connector'}
 * ({@code CatalogSourceTable}, {@code DynamicSinkUtils}); this module's factory hands a table whose
 * connector one of ours claims to it, and every other table to exactly what Flink would have
 * created without the module.
 */
@Internal
final class SqlConnectorModule implements Module {

    /** The module's name in the table environment. */
    static final String NAME = "flinkss-micro-batch-connectors";

    private final Router router;

    private SqlConnectorModule(
            Map<String, MicroBatchConnector> connectors, String transactionalIdPrefix) {
        this.router = new Router(connectors, transactionalIdPrefix);
    }

    /**
     * The module of the connectors listed on the class path of {@code loader}.
     *
     * @param transactionalIdPrefix the query's prefix of Kafka transactional ids ({@code
     *     KafkaSinks#transactionalIdPrefix}); each Kafka sink table adds its name
     */
    static SqlConnectorModule discover(ClassLoader loader, String transactionalIdPrefix) {
        Map<String, MicroBatchConnector> connectors = new HashMap<>();
        for (MicroBatchConnector c : ServiceLoader.load(MicroBatchConnector.class, loader)) {
            connectors.put(c.factoryIdentifier(), c);
        }
        return new SqlConnectorModule(connectors, transactionalIdPrefix);
    }

    @Override
    public Optional<DynamicTableSourceFactory> getTableSourceFactory() {
        return Optional.of(router);
    }

    @Override
    public Optional<DynamicTableSinkFactory> getTableSinkFactory() {
        return Optional.of(router);
    }

    /** Sends each table to its factory: ours by identifier, else Flink's discovery. */
    private static final class Router
            implements DynamicTableSourceFactory, DynamicTableSinkFactory {

        private final Map<String, MicroBatchConnector> connectors;
        private final String transactionalIdPrefix;

        Router(Map<String, MicroBatchConnector> connectors, String transactionalIdPrefix) {
            this.connectors = connectors;
            this.transactionalIdPrefix = transactionalIdPrefix;
        }

        @Override
        public DynamicTableSource createDynamicTableSource(Context context) {
            MicroBatchConnector ours = connectors.get(connector(context));
            if (ours != null) {
                return ours.createDynamicTableSource(context);
            }
            return FactoryUtil.createDynamicTableSource(
                    null,
                    context.getObjectIdentifier(),
                    context.getCatalogTable(),
                    context.getEnrichmentOptions(),
                    context.getConfiguration(),
                    context.getClassLoader(),
                    context.isTemporary());
        }

        @Override
        public DynamicTableSink createDynamicTableSink(Context context) {
            String connector = connector(context);
            if (KafkaSinkTable.CONNECTORS.contains(connector)) {
                // Written by Flink's Kafka table sink, exactly once unless the table says
                // otherwise: its transactions commit with the query's checkpoints.
                String table = context.getObjectIdentifier().getObjectName();
                ResolvedCatalogTable written =
                        KafkaSinkTable.withDefaults(
                                context.getCatalogTable(), transactionalIdPrefix, table);
                return new KafkaSinkTable(
                        FactoryUtil.createDynamicTableSink(
                                null,
                                context.getObjectIdentifier(),
                                written,
                                context.getEnrichmentOptions(),
                                context.getConfiguration(),
                                context.getClassLoader(),
                                context.isTemporary()),
                        table,
                        "KafkaSink[" + written.getOptions().get("topic") + "]");
            }
            if (connectors.containsKey(connector)) {
                String table = context.getObjectIdentifier().getObjectName();
                throw new SqlTableException(
                        table,
                        "table '"
                                + table
                                + "' ('connector' = '"
                                + connector
                                + "') is read, not written, by sql --file: write the results to"
                                + " a table with 'connector' = 'delta'");
            }
            return FactoryUtil.createDynamicTableSink(
                    null,
                    context.getObjectIdentifier(),
                    context.getCatalogTable(),
                    context.getEnrichmentOptions(),
                    context.getConfiguration(),
                    context.getClassLoader(),
                    context.isTemporary());
        }

        private static String connector(Context context) {
            return context.getCatalogTable().getOptions().get(FactoryUtil.CONNECTOR.key());
        }

        @Override
        public String factoryIdentifier() {
            return NAME;
        }

        @Override
        public Set<ConfigOption<?>> requiredOptions() {
            return Set.of();
        }

        @Override
        public Set<ConfigOption<?>> optionalOptions() {
            return Set.of();
        }
    }
}
