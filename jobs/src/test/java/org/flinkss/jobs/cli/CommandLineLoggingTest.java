package org.flinkss.jobs.cli;

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
}
