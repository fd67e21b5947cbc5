package org.flinkss.runtime.sql;

import org.apache.flink.table.factories.DynamicTableSourceFactory;

/**
 * A table source of {@code sql --file} that takes the place of another factory with the same
 * identifier on the class path: {@code 'connector' = 'kafka'} read in micro-batches instead of by
 * Flink's own Kafka connector. Implementations are listed in {@code
 * META-INF/services/org.flinkss.runtime.sql.MicroBatchConnector}, not in Flink's factory list, so
 * Flink never finds two factories for one identifier (an error in its {@code FactoryUtil}); a
 * {@code sql --file} run picks them first through a module of its own ({@link SqlConnectorModule}),
 * and every other table goes to the factory Flink would have used.
 *
 * <p>As a sink such a connector is refused, naming the table: a query of {@code sql --file} writes
 * its results to tables that commit with its micro-batches; a {@code 'kafka'} table goes to Flink's
 * Kafka table sink instead, exactly once by default ({@link KafkaSinkTable}).
 */
public interface MicroBatchConnector extends DynamicTableSourceFactory {}
