package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.plugin.DefaultPluginManager;
import org.apache.flink.core.plugin.PluginConfig;
import org.apache.flink.core.plugin.PluginDescriptor;
import org.apache.flink.core.plugin.PluginManager;
import org.apache.flink.core.plugin.PluginUtils;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Flink's S3 file system (flink-s3-fs-hadoop) as a plugin of this process, as a Flink cluster loads
 * it: with its own class loader, since its Hadoop classes (3.3.4, as the runtime's, but built on
 * unrelocated Guava, Jackson and the AWS SDK) would clash with the shaded Hadoop client that
 * Parquet and Delta Kernel use. Found in Flink's plugins folder ({@code $FLINK_PLUGINS_DIR}, {@code
 * ./plugins}) when that has an S3 plugin, else in the copy the jobs jar carries ({@link
 * #RESOURCE}), unpacked once into a cache folder.
 */
@Internal
public final class S3Plugin {

    private static final Logger LOG = LoggerFactory.getLogger(S3Plugin.class);

    /** Where the jobs jar carries the plugin (the jobs module's build copies it there). */
    public static final String RESOURCE = "flinkss-plugins/s3-fs-hadoop/flink-s3-fs-hadoop.jar";

    private static final String PLUGIN_ID = "s3-fs-hadoop";

    private S3Plugin() {}

    /**
     * The plugins of this process: Flink's plugins folder, plus the bundled S3 plugin if needed.
     */
    public static PluginManager pluginManager(Configuration conf) {
        Optional<Path> folder = PluginConfig.fromConfiguration(conf).getPluginsPath();
        if (folder.isPresent() && hasS3Plugin(folder.get())) {
            return PluginUtils.createPluginManagerFromRootFolder(conf);
        }
        Optional<Path> bundled = unpackBundled();
        if (bundled.isEmpty()) {
            return PluginUtils.createPluginManagerFromRootFolder(conf);
        }
        List<PluginDescriptor> plugins = new ArrayList<>();
        try {
            plugins.add(
                    new PluginDescriptor(
                            PLUGIN_ID, new URL[] {bundled.get().toUri().toURL()}, new String[0]));
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
        return new DefaultPluginManager(
                plugins, PluginConfig.fromConfiguration(conf).getAlwaysParentFirstPatterns());
    }

    private static boolean hasS3Plugin(Path folder) {
        try (var children = Files.list(folder)) {
            return children.anyMatch(p -> p.getFileName().toString().contains("s3"));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The bundled jar, unpacked once into this user's {@link NestedJarCache} (under a name that
     * changes with its content), so that each process does not unpack 30 MB again; absent when no
     * copy is bundled.
     */
    private static Optional<Path> unpackBundled() {
        URL resource = S3Plugin.class.getClassLoader().getResource(RESOURCE);
        if (resource == null) {
            return Optional.empty();
        }
        if ("file".equals(resource.getProtocol())) {
            try {
                return Optional.of(Paths.get(resource.toURI()));
            } catch (Exception e) {
                // fall through to copying it
            }
        }
        try {
            Path target = NestedJarCache.inTemporaryFolder().copyOf(resource, PLUGIN_ID);
            LOG.info("the bundled S3 file system plugin is {}", target);
            return Optional.of(target);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot unpack the S3 file system plugin the jar carries into "
                            + NestedJarCache.inTemporaryFolder().folder()
                            + ": "
                            + e.getMessage()
                            + " (set java.io.tmpdir to a writable folder, or put"
                            + " flink-s3-fs-hadoop into $FLINK_PLUGINS_DIR/s3-fs-hadoop/)",
                    e);
        }
    }
}
