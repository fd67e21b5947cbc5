package org.flinkss.runtime.ops;

import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.runner.impl.FlinkConfFile;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Makes Flink's file systems ready for a command (or a program) that reaches an object store: the
 * {@code s3.*} keys of the Flink configuration the embedded run reads ({@code
 * flink-conf/config.yaml}, found as {@link FlinkConfFile#locate} says) and {@code
 * AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY} of the environment, once per process ({@link
 * Storage#initializeOnce}). Under {@code flink run} the Flink client has initialized them already,
 * from the cluster's configuration and plugins.
 */
public final class StorageSetup {

    private StorageSetup() {}

    /**
     * @param base the local base, whose {@code _tmp} holds the scratch folder; null for a base on
     *     an object store (the system's temporary folder then)
     */
    public static void initialize(@Nullable Path base) {
        FlinkConfFile file = FlinkConfFile.locate(null);
        Storage.initializeOnce(
                () -> {
                    Path scratch;
                    try {
                        Path tmp =
                                base != null
                                        ? base.resolve("_tmp")
                                        : Paths.get(System.getProperty("java.io.tmpdir"));
                        Files.createDirectories(tmp);
                        scratch = Files.createTempDirectory(tmp, "storage-conf");
                    } catch (IOException e) {
                        throw new UncheckedIOException(
                                "cannot create a folder in " + base + "/_tmp: " + e.getMessage(),
                                e);
                    }
                    try {
                        return file.load(scratch);
                    } finally {
                        Folders.deleteQuietly(scratch);
                    }
                },
                file.file()
                        .map(Path::toString)
                        .orElse("the copy of flink-conf/config.yaml built into the jar"));
    }
}
