package org.flinkss.jobs.cli;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.ConfigurationSource;
import org.apache.logging.log4j.core.config.properties.PropertiesConfigurationFactory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line's own logging configuration (the jar's {@code log4j2.properties}, not the
 * tests'): Delta Kernel's warning at every read of a table without a Delta checkpoint file ("Cannot
 * find a complete checkpoint. Listing from version 0.") is not printed, since it came up to 49
 * times per command, around each command's result; other warnings still are.
 */
class CommandLineLoggingTest {

    private static final String SNAPSHOTS = "io.delta.kernel.internal.snapshot.SnapshotManager";

    @Test
    void deltaKernelCheckpointListingWarningIsNotPrinted() throws Exception {
        Configuration configuration = log4jConfiguration();

        assertThat(levelOf(configuration, SNAPSHOTS)).isEqualTo(Level.ERROR);
        // Other warnings still are, Delta Kernel's included.
        assertThat(levelOf(configuration, "io.delta.kernel.internal.TransactionImpl"))
                .isEqualTo(Level.WARN);
        assertThat(configuration.getRootLogger().getLevel()).isEqualTo(Level.WARN);
    }

    /**
     * Flink's RPC endpoints warn when something is scheduled on one whose executor has stopped,
     * which an embedded cluster's shutdown gave after about one successful run in a hundred ("The
     * scheduled executor service is shutdown and ignores the command ...DefaultHeartbeatMonitor",
     * CleanExitITCase on CI). That logger, a nested class's, is resolved here as log4j2 resolves it
     * at run time; the rest of Flink's RPC still warns.
     */
    @Test
    void rpcEndpointShutdownWarningIsNotPrintedButOtherRpcWarningsAre() throws Exception {
        Configuration configuration = log4jConfiguration();

        assertThat(
                        levelOf(
                                configuration,
                                "org.apache.flink.runtime.rpc.RpcEndpoint$MainThreadExecutor"))
                .isEqualTo(Level.ERROR);
        assertThat(levelOf(configuration, "org.apache.flink.runtime.rpc.RpcEndpoint"))
                .isEqualTo(Level.WARN);
        assertThat(levelOf(configuration, "org.apache.flink.runtime.rpc.RpcService"))
                .isEqualTo(Level.WARN);
    }

    /**
     * Flink 2.2.0's sink committer registers its {@code pendingCommittables} gauge again at every
     * checkpoint, and Flink's metric group warns of the name collision each time: a real-time run
     * to Kafka printed two such lines a second ({@code BenchLatencyScriptITCase} checks the
     * queries' logs). Flink's other metric loggers still warn.
     */
    @Test
    void metricNameCollisionWarningIsNotPrintedButOtherMetricWarningsAre() throws Exception {
        Configuration configuration = log4jConfiguration();

        assertThat(levelOf(configuration, "org.apache.flink.metrics.MetricGroup"))
                .isEqualTo(Level.ERROR);
        assertThat(levelOf(configuration, "org.apache.flink.runtime.metrics.MetricRegistryImpl"))
                .isEqualTo(Level.WARN);
    }

    private static Configuration log4jConfiguration() throws Exception {
        ClassLoader loader = CommandLineLoggingTest.class.getClassLoader();
        ConfigurationSource source = ConfigurationSource.fromResource("log4j2.properties", loader);
        assertThat(source).as("the jar's log4j2.properties on the class path").isNotNull();
        Configuration configuration =
                new PropertiesConfigurationFactory()
                        .getConfiguration(new LoggerContext("command-line-logging-test"), source);
        configuration.initialize();
        return configuration;
    }

    private static Level levelOf(Configuration configuration, String logger) {
        return configuration.getLoggerConfig(logger).getLevel();
    }
}
