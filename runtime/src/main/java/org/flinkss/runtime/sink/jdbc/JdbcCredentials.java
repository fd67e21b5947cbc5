package org.flinkss.runtime.sink.jdbc;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Where a database's user and password come from: the environment ({@value #USER_VARIABLE}, {@value
 * #PASSWORD_VARIABLE}) or a properties file named by {@value #PROPERTIES_VARIABLE} ({@code user=},
 * {@code password=}), read where the connection is made. A password written into the JDBC URL works
 * too (the driver reads it), but the URL is a command-line argument, which every user of the
 * machine sees in the process list ({@code ps}): {@link #urlPasswordWarning} says so, without the
 * password, and {@link #redacted} is the URL as messages show it.
 */
public final class JdbcCredentials {

    /** The environment variable that holds the database user. */
    public static final String USER_VARIABLE = "FLINKSS_JDBC_USER";

    /** The environment variable that holds the database password. */
    public static final String PASSWORD_VARIABLE = "FLINKSS_JDBC_PASSWORD";

    /**
     * The environment variable that names a properties file with {@code user} and {@code password}.
     */
    public static final String PROPERTIES_VARIABLE = "FLINKSS_JDBC_PROPERTIES";

    /** {@code password=...} as a URL parameter ({@code ?}, {@code &} or {@code ;} before it). */
    private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)[?&;]password=[^&;]");

    /** {@code //user:password@host}: a password in the URL's authority. */
    private static final Pattern USER_INFO = Pattern.compile("//([^/?#@:]*):([^/?#@]*)@");

    private JdbcCredentials() {}

    /** Whether {@code url} carries a password (a parameter, or {@code user:password@}). */
    public static boolean passwordInUrl(String url) {
        return PASSWORD_PARAMETER.matcher(url).find() || USER_INFO.matcher(url).find();
    }

    /** {@code url} without its user or password: {@code user=***}, {@code //***:***@host}. */
    public static String redacted(String url) {
        return USER_INFO
                .matcher(url.replaceAll("(?i)(user|password)=[^&;]*", "$1=***"))
                .replaceAll("//***:***@");
    }

    /**
     * The one-line warning for a URL that carries a password, naming the way to use instead; null
     * if it carries none. Never shows the password.
     */
    @Nullable
    public static String urlPasswordWarning(String url) {
        if (!passwordInUrl(url)) {
            return null;
        }
        return "warning: --jdbc-url "
                + redacted(url)
                + " carries a password, which every user of this machine can read in the process"
                + " list (ps): pass it in the environment variable "
                + PASSWORD_VARIABLE
                + " (the user in "
                + USER_VARIABLE
                + "), or in a properties file named by "
                + PROPERTIES_VARIABLE
                + ", and leave it out of the URL (docs/exactly-once.md)";
    }

    /**
     * The connection properties {@code env} gives: the properties file first, then the variables,
     * which win.
     */
    static Properties from(Map<String, String> env) throws SQLException {
        Properties props = new Properties();
        String file = env.get(PROPERTIES_VARIABLE);
        if (file != null) {
            try (InputStream in = Files.newInputStream(Paths.get(file))) {
                props.load(in);
            } catch (IOException e) {
                throw new SQLException(
                        "cannot read the JDBC properties file named by "
                                + PROPERTIES_VARIABLE
                                + " ("
                                + file
                                + "): "
                                + e.getMessage(),
                        e);
            }
        }
        if (env.get(USER_VARIABLE) != null) {
            props.setProperty("user", env.get(USER_VARIABLE));
        }
        if (env.get(PASSWORD_VARIABLE) != null) {
            props.setProperty("password", env.get(PASSWORD_VARIABLE));
        }
        return props;
    }
}
