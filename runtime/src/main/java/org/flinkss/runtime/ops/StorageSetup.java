package org.flinkss.runtime.ops;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.runner.impl.FlinkConfFile;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.storage.impl.LocalDisk;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

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
     * @param base the base; a local one's {@code _tmp} holds the scratch folder, else (null, or a
     *     base on an object store) the system's temporary folder
     */
    public static void initialize(@Nullable Path base) {
        FlinkConfFile file = FlinkConfFile.locate(null);
        // The scratch folder is local whatever the base: Flink's configuration loader reads files.
        File tmp =
                base != null && Storage.isLocal(base)
                        ? new File(Storage.localFile(base, "a base"), "_tmp")
                        : new File(System.getProperty("java.io.tmpdir"));
        Storage.initializeOnce(
                () -> {
                    File scratch;
                    try {
                        Files.createDirectories(tmp.toPath());
                        scratch = Files.createTempDirectory(tmp.toPath(), "storage-conf").toFile();
                    } catch (IOException e) {
                        throw new UncheckedIOException(
                                "cannot create a folder in " + tmp + ": " + e.getMessage(), e);
                    }
                    try {
                        return file.load(scratch.toPath());
                    } finally {
                        LocalDisk.deleteQuietly(scratch.toPath());
                    }
                },
                file.file()
                        .map(String::valueOf)
                        .orElse("the copy of flink-conf/config.yaml built into the jar"));
    }
}
