package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Paths;
import java.util.Optional;

/**
 * Which state a run restores: the checkpoint directory's newest restore point. A savepoint given to
 * {@code flink run -s} is taken instead only if it is newer (one the directory never saw, e.g. from
 * a {@code flink stop --savepointPath} while no client watched the job); an older one would replay
 * committed batches and is ignored, saying so.
 */
@Internal
public final class RestorePolicy {

    private final RestorePoints restorePoints;
    private final Path checkpointDir;
    @Nullable private final ReadableConfig flinkRunClient;
    private final PrintStream out;

    /**
     * @param flinkRunClient the configuration of {@code flink run}'s client (which holds its {@code
     *     -s}), or null for an embedded run
     */
    public RestorePolicy(
            RestorePoints restorePoints,
            Path checkpointDir,
            @Nullable ReadableConfig flinkRunClient,
            PrintStream out) {
        this.restorePoints = restorePoints;
        this.checkpointDir = checkpointDir;
        this.flinkRunClient = flinkRunClient;
        this.out = out;
    }

    /** The state to restore, or empty for a first run. */
    public Optional<Path> choose() {
        Optional<Path> newest = restorePoints.newest();
        Optional<String> given =
                flinkRunClient == null
                        ? Optional.empty()
                        : flinkRunClient.getOptional(StateRecoveryOptions.SAVEPOINT_PATH);
        if (given.isEmpty()) {
            return newest;
        }
        Path path = location(given.get());
        if (path != null && path.getName().equals("_metadata")) {
            path = path.getParent();
        }
        if (path == null || !hasMetadata(path)) {
            out.println(
                    "note: ignoring -s "
                            + given.get()
                            + ": not a savepoint folder with a _metadata file; "
                            + "restoring from the checkpoint "
                            + newest.map(RestorePoints::shown).orElse("(none yet: a first run)"));
            return newest;
        }
        if (newest.isPresent()
                && RestorePoints.timeMillis(newest.get()) >= RestorePoints.timeMillis(path)) {
            if (newest.get().getName().equals(path.getName())) {
                out.println(
                        "note: -s "
                                + given.get()
                                + " is already in the checkpoint as "
                                + RestorePoints.shown(newest.get())
                                + "; restoring from it");
            } else {
                out.println(
                        "note: ignoring -s "
                                + given.get()
                                + ": the checkpoint has a newer restore point, "
                                + RestorePoints.shown(newest.get())
                                + " (the older one would process committed batches again)");
            }
            return newest;
        }
        out.println(
                "note: restoring from -s "
                        + RestorePoints.shown(path)
                        + ", newer than everything in "
                        + RestorePoints.shown(checkpointDir));
        return Optional.of(path);
    }

    private static boolean hasMetadata(Path point) {
        try {
            return Storage.exists(new Path(point, "_metadata"));
        } catch (IOException | RuntimeException e) {
            return false; // a file system this process cannot reach
        }
    }

    /**
     * A location as Flink prints or takes it, on any storage ({@code file:/...}, {@code s3://...},
     * or a local path without a scheme); null for a malformed one.
     */
    @Nullable
    static Path location(String given) {
        File local = localPath(given);
        if (local != null) {
            return RestorePoints.location(local);
        }
        try {
            return Storage.location(given);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * A local path from a location as Flink prints or takes it ({@code file:/...}, or a path
     * without a scheme); null for another file system or a malformed location.
     */
    @Nullable
    static File localPath(String location) {
        try {
            URI uri = URI.create(location);
            if (uri.getScheme() == null) {
                return new File(location).toPath().toAbsolutePath().normalize().toFile();
            }
            return "file".equals(uri.getScheme()) ? Paths.get(uri).normalize().toFile() : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
