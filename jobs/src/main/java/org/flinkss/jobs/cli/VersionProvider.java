package org.flinkss.jobs.cli;

import org.apache.flink.runtime.util.EnvironmentInformation;

import io.delta.kernel.Meta;
import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * What {@code --version} (and {@code -V} on every command) prints: the project's version and the
 * commit it was built from, then the versions of Flink, Delta Kernel and Java this process runs
 * with. The project's version and commit come from {@code flinkss-build.properties}, written by the
 * build ({@code jobs/pom.xml}: "unknown" for a build outside a git clone, "modified" for one with
 * uncommitted changes); Flink's is read from the Flink on the class path, so under {@code flink
 * run} it is the cluster's.
 */
public final class VersionProvider implements IVersionProvider {

    static final String BUILD_PROPERTIES = "/flinkss-build.properties";

    @Override
    public String[] getVersion() {
        Properties build = buildProperties();
        return new String[] {
            "flink-structured-streaming "
                    + build.getProperty("project.version", "unknown")
                    + " (commit "
                    + commit(build)
                    + ")",
            "Apache Flink " + EnvironmentInformation.getVersion(),
            "Delta Kernel " + Meta.KERNEL_VERSION,
            "Java "
                    + Runtime.version()
                    + " ("
                    + System.getProperty("java.vendor")
                    + ", "
                    + System.getProperty("java.vm.name")
                    + ")"
        };
    }

    /** The commit, "unknown" when the build did not know it, marked when it had changes. */
    static String commit(Properties build) {
        String commit = build.getProperty("commit", "unknown");
        // An unfiltered placeholder (a build that skipped the git step) is no commit either.
        if (commit.isBlank() || commit.contains("${")) {
            return "unknown";
        }
        return "true".equals(build.getProperty("commit.modified")) ? commit + ", modified" : commit;
    }

    /** The build's properties (the project version, the commit, the charting library's version). */
    public static Properties buildProperties() {
        Properties properties = new Properties();
        try (InputStream in = VersionProvider.class.getResourceAsStream(BUILD_PROPERTIES)) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + BUILD_PROPERTIES, e);
        }
        return properties;
    }
}
