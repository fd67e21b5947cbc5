package org.flinkss.jobs.build;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * What the build wrote into {@code flinkss-build.properties} ({@code jobs/pom.xml}, by resource
 * filtering): the project's version, the commit it was built from, and the version of the charting
 * library the report inlines.
 */
public final class BuildInfo {

    static final String RESOURCE = "/flinkss-build.properties";

    private final Properties properties;

    BuildInfo(Properties properties) {
        this.properties = properties;
    }

    /** This jar's build. */
    public static BuildInfo current() {
        Properties properties = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        return new BuildInfo(properties);
    }

    public String projectVersion() {
        return known(properties.getProperty("project.version"));
    }

    /**
     * The commit, "unknown" when the build did not know it (outside a git clone), followed by ",
     * modified" when the build had uncommitted changes.
     */
    public String commit() {
        String commit = known(properties.getProperty("commit"));
        return !commit.equals("unknown") && "true".equals(properties.getProperty("commit.modified"))
                ? commit + ", modified"
                : commit;
    }

    public String echartsVersion() {
        return known(properties.getProperty("echarts.version"));
    }

    /** A value the build wrote, or "unknown" (none, or a placeholder the build did not fill). */
    private static String known(String value) {
        return value == null || value.isBlank() || value.contains("${") ? "unknown" : value;
    }
}
