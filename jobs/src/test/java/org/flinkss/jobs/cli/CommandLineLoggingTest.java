package org.flinkss.jobs.cli;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.ConfigurationSource;
import org.apache.logging.log4j.core.config.properties.PropertiesConfigurationFactory;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line's own logging configuration (the jar's {@code log4j2.properties}, not the
 * tests'): Delta Kernel's warning at every read of a table without a Delta checkpoint file ("Cannot
 * find a complete checkpoint. Listing from version 0.") is not printed, since it came up to 49
 * times per command, around each command's result; other warnings still are.
 */
class CommandLineLoggingTest {

    private static final String SNAPSHOTS = "io.delta.kernel.internal.snapshot.SnapshotManager";

    private static Properties commandLineConfiguration() throws Exception {
        Properties properties = new Properties();
        try (InputStream in =
                CommandLineLoggingTest.class
                        .getClassLoader()
                        .getResourceAsStream("log4j2.properties")) {
            assertThat(in).as("the jar's log4j2.properties on the class path").isNotNull();
            properties.load(in);
        }
        return properties;
    }

    @Test
    void deltaKernelCheckpointListingWarningIsNotPrinted() throws Exception {
        Properties configuration = commandLineConfiguration();
        String logger =
                configuration.stringPropertyNames().stream()
                        .filter(key -> key.endsWith(".name"))
                        .filter(key -> SNAPSHOTS.equals(configuration.getProperty(key)))
                        .map(key -> key.substring(0, key.length() - ".name".length()))
                        .findFirst()
                        .orElse(null);
        assertThat(logger).as("a logger for " + SNAPSHOTS).isNotNull();
        assertThat(configuration.getProperty(logger + ".level")).isEqualTo("ERROR");
        assertThat(configuration.getProperty("rootLogger.level")).isEqualTo("WARN");
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
