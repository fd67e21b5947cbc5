package org.flinkss.runtime.sql;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
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

    private SqlConnectorModule(Map<String, MicroBatchConnector> connectors) {
        this.router = new Router(connectors);
    }

    /** The module of the connectors listed on the class path of {@code loader}. */
    static SqlConnectorModule discover(ClassLoader loader) {
        Map<String, MicroBatchConnector> connectors = new HashMap<>();
        for (MicroBatchConnector c : ServiceLoader.load(MicroBatchConnector.class, loader)) {
            connectors.put(c.factoryIdentifier(), c);
        }
        return new SqlConnectorModule(connectors);
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

        Router(Map<String, MicroBatchConnector> connectors) {
            this.connectors = connectors;
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
