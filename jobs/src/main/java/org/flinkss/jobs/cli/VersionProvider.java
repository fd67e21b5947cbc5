package org.flinkss.jobs.cli;

import org.apache.flink.runtime.util.EnvironmentInformation;

import io.delta.kernel.Meta;
import picocli.CommandLine.IVersionProvider;

import org.flinkss.jobs.build.BuildInfo;

/**
 * What {@code --version} (and {@code -V} on every command) prints: the project's version and the
 * commit it was built from ({@link BuildInfo}: "unknown" for a build outside a git clone,
 * "modified" for one with uncommitted changes), then the versions of Flink, Delta Kernel and Java
 * this process runs with. Flink's is read from the Flink on the class path, so under {@code flink
 * run} it is the cluster's.
 */
public final class VersionProvider implements IVersionProvider {

    @Override
    public String[] getVersion() {
        BuildInfo build = BuildInfo.current();
        return new String[] {
            "flink-structured-streaming "
                    + build.projectVersion()
                    + " (commit "
                    + build.commit()
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
}
