package org.flinkss.jobs.cli.output;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Map;

/**
 * The command line's logging: the jar's {@code log4j2.properties} (warnings and errors, on stderr),
 * a file of the user's instead ({@code java -Dlog4j2.configurationFile=FILE}, or {@code
 * FLINKSS_LOG_CONFIG=FILE}), and {@code --verbose}, which adds INFO (docs/command-line.md,
 * Logging).
 */
public final class Logging {

    /** The environment variable that names a log4j2 configuration file for the command line. */
    public static final String CONFIG_VARIABLE = "FLINKSS_LOG_CONFIG";

    /** log4j2's own system property for its configuration file. */
    static final String LOG4J_PROPERTY = "log4j2.configurationFile";

    private Logging() {}

    /**
     * Before anything logs: {@code FLINKSS_LOG_CONFIG}, unless the JVM was given {@code
     * -Dlog4j2.configurationFile} itself (that one wins).
     *
     * @throws IllegalArgumentException if the variable names no file
     */
    public static void configure(Map<String, String> environment) {
        String file = environment.get(CONFIG_VARIABLE);
        if (file == null || file.isBlank() || System.getProperty(LOG4J_PROPERTY) != null) {
            return;
        }
        if (!Files.isRegularFile(Paths.get(file))) {
            throw new IllegalArgumentException(
                    CONFIG_VARIABLE
                            + "="
                            + file
                            + " is no file: name a log4j2 configuration file (a .properties or"
                            + " .xml), or unset it for the jar's own");
        }
        System.setProperty(LOG4J_PROPERTY, file);
    }

    /**
     * {@code --verbose}: INFO for everything whose level the configuration does not set itself
     * (Flink's and this project's logs among them); loggers it quiets on purpose stay quiet.
     */
    public static void verbose() {
        try {
            Configurator.setRootLevel(Level.INFO);
            Configurator.setLevel("org.apache.flink", Level.INFO);
            Configurator.setLevel("org.flinkss", Level.INFO);
        } catch (LinkageError e) {
            // Under flink run with a logging library other than log4j2: the cluster's own.
            System.err.println(
                    "warning: --verbose sets log4j2's levels, and this process logs through"
                            + " another library: set its levels in its own configuration");
        }
    }

    /**
     * {@code -D log4j2.configurationFile=...} after the command is a Flink option, read after the
     * logging has started: said, with where it goes instead.
     */
    public static void refuseAsFlinkOption(String key) {
        if (key.startsWith("log4j")) {
            throw new IllegalArgumentException(
                    "-D "
                            + key
                            + " after the command is a Flink option; a log4j2 setting is a JVM"
                            + " option: java -D"
                            + key
                            + "=... -jar flinkss-jobs.jar ..., or "
                            + CONFIG_VARIABLE
                            + "=FILE");
        }
    }
}
