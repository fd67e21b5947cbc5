package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.ListedFile;
import org.flinkss.runtime.storage.Storage;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The states a query's next run can restore: Flink's retained checkpoints ({@code
 * checkpoints/<job>/chk-N}) and the savepoints its runs ended with ({@code savepoints/}). Each is a
 * folder with a {@code _metadata} file; they are ordered by that file's time.
 *
 * <p>Restore points are named as Flink's file systems name them, on any storage ({@link
 * CheckpointLayout#location()}, a local folder or an object store); a local directory is walked by
 * {@link LocalRestorePoints}.
 */
public final class RestorePoints {

    private final CheckpointLayout layout;

    public RestorePoints(CheckpointLayout layout) {
        this.layout = layout;
    }

    /**
     * The newest complete checkpoint or savepoint, or empty for a first run. After a kill this is
     * the last checkpoint that completed; an older savepoint would replay batches that were already
     * committed.
     */
    public Optional<Path> newest() {
        List<Path> all = all();
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /**
     * Whether job {@code jobId} completed a savepoint into this checkpoint: the stop with a
     * savepoint that ends a run, the job's last checkpoint. Flink names the folder {@code
     * savepoint-<the job id's first 6 characters>-<random>}.
     */
    public boolean savepointCompletedBy(String jobId) {
        String prefix = "savepoint-" + jobId.substring(0, Math.min(6, jobId.length())) + "-";
        return all().stream().anyMatch(p -> p.getName().startsWith(prefix));
    }

    /** Every complete checkpoint and savepoint, oldest first. */
    public List<Path> all() {
        if (!layout.isObjectStore()) {
            List<Path> local = new ArrayList<>();
            local().all().forEach(p -> local.add(location(p.toFile())));
            return local;
        }
        List<Found> found = new ArrayList<>();
        for (Path root : List.of(layout.checkpoints(), layout.savepoints())) {
            boolean savepoints = root.equals(layout.savepoints());
            String rootKey = key(root) + "/";
            List<ListedFile> files;
            try {
                // One flat listing: Flink's incremental checkpoints keep their shared files
                // below, but the listing costs one request per 1,000 keys, not one per folder.
                files = Storage.listFilesBelow(root);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + root + ": " + e.getMessage(), e);
            }
            for (ListedFile file : files) {
                String k = key(file.path());
                if (!file.name().equals("_metadata") || !k.startsWith(rootKey)) {
                    continue;
                }
                String relative = k.substring(rootKey.length(), k.length() - "/_metadata".length());
                int depth = relative.split("/").length + 1;
                // As the local walk: _metadata at most 3 levels below the root.
                if (relative.isEmpty() || depth > 3) {
                    continue;
                }
                found.add(new Found(new Path(root, relative), file.modificationTime(), savepoints));
            }
        }
        // An object's time may be in whole seconds: at a tie a savepoint comes after the
        // checkpoints (a run's savepoint is its last state), and a checkpoint after lower ones.
        found.sort(
                Comparator.comparingLong((Found f) -> f.time)
                        .thenComparing(f -> f.savepoint)
                        .thenComparingLong(f -> checkpointId(f.path)));
        List<Path> points = new ArrayList<>();
        found.forEach(f -> points.add(f.path));
        return points;
    }

    /** A restore point found on an object store. */
    private static final class Found {
        final Path path;
        final long time;
        final boolean savepoint;

        Found(Path path, long time, boolean savepoint) {
            this.path = path;
            this.time = time;
            this.savepoint = savepoint;
        }
    }

    private static long checkpointId(Path point) {
        String name = point.getName();
        try {
            return name.startsWith("chk-") ? Long.parseLong(name.substring(4)) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** A path's bucket-relative name without a trailing '/', whatever its scheme says. */
    private static String key(Path path) {
        String p = path.toUri().getPath();
        return p.endsWith("/") && p.length() > 1 ? p.substring(0, p.length() - 1) : p;
    }

    /** Whether {@code inner} is {@code outer} or below it. */
    static boolean within(Path inner, Path outer) {
        return (key(inner) + "/").startsWith(key(outer) + "/");
    }

    /**
     * A local restore point as Flink's file systems name it: {@code file:/...}, without the
     * trailing '/' that {@link File#toURI()} gives a folder (one point, one name).
     */
    public static Path location(File local) {
        return new Path("file", null, local.toPath().toAbsolutePath().normalize().toString());
    }

    /** The local walk, for a directory on a local disk. */
    private LocalRestorePoints local() {
        return new LocalRestorePoints(
                Storage.localFile(layout.location(), "a checkpoint").toPath(),
                Storage.localFile(layout.checkpoints(), "a checkpoint").toPath(),
                Storage.localFile(layout.savepoints(), "a checkpoint").toPath());
    }

    /**
     * How a restore point is named in messages: a local one as its file (as before), one on an
     * object store as its URI.
     */
    public static String shown(Path location) {
        return Storage.shown(location);
    }

    /** When a restore point anywhere was completed, in epoch milliseconds (0 if unknown). */
    public static long timeMillis(Path restorePoint) {
        if (Storage.isLocal(restorePoint)) {
            return LocalRestorePoints.time(
                            Storage.localFile(restorePoint, "a restore point").toPath())
                    .toMillis();
        }
        Path metadata = new Path(restorePoint, "_metadata");
        try {
            return metadata.getFileSystem().getFileStatus(metadata).getModificationTime();
        } catch (IOException e) {
            return 0;
        }
    }

    /** Completed checkpoint ids of one Flink job, from its retained checkpoint folders. */
    public List<Long> completedCheckpoints(String jobId) {
        if (!layout.isObjectStore()) {
            return local().completedCheckpoints(
                            Storage.localFile(layout.checkpointsOfJob(jobId), "a checkpoint")
                                    .toPath());
        }
        List<Long> ids = new ArrayList<>();
        try {
            for (FileStatus child : Storage.list(layout.checkpointsOfJob(jobId))) {
                Path p = child.getPath();
                if (p.getName().startsWith("chk-") && Storage.exists(new Path(p, "_metadata"))) {
                    long id = checkpointId(p);
                    if (id >= 0) {
                        ids.add(id);
                    }
                }
            }
        } catch (FileNotFoundException e) {
            return ids; // deleted by Flink while we looked
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ids.sort(Long::compare);
        return ids;
    }

    /**
     * Makes a savepoint taken outside this directory the query's, on any storage: one already in
     * {@code savepoints/} is returned as it is; a local one (a {@code flink stop --savepointPath})
     * is copied into {@code savepoints/} of a local directory, where it is the newest restore
     * point. Canonical and native savepoints are self-contained, so the copy restores like the
     * original.
     *
     * @throws UncheckedIOException if it cannot be copied (into a directory on an object store,
     *     only a savepoint already in its {@code savepoints/} is taken)
     */
    public Path adopt(Path external) {
        if (layout.isObjectStore()
                && Storage.isObjectStore(external)
                && within(external, layout.savepoints())) {
            return external;
        }
        if (!layout.isObjectStore() && Storage.isLocal(external)) {
            return location(
                    local().adopt(Storage.localFile(external, "a savepoint").toPath()).toFile());
        }
        throw new UncheckedIOException(
                new IOException(
                        "cannot copy savepoint "
                                + external
                                + " into "
                                + layout.savepoints()
                                + ": only a savepoint already in it is taken on an object store"));
    }

    /**
     * Keeps only what the next run restores from: {@code keep}. Older savepoints and the retained
     * checkpoints of earlier jobs go (RocksDB savepoints are self-contained), and so do job folders
     * whose checkpoints never completed (a run killed before its first one).
     */
    public void pruneExcept(Path keep) {
        if (!layout.isObjectStore()) {
            local().pruneExcept(Storage.localFile(keep, "a restore point").toPath());
            return;
        }
        for (Path p : all()) {
            if (!key(p).equals(key(keep))) {
                Path owner =
                        key(p.getParent()).equals(key(layout.savepoints())) ? p : p.getParent();
                if (!within(keep, owner)) {
                    deleteQuietly(owner);
                }
            }
        }
        try {
            for (FileStatus job : Storage.list(layout.checkpoints())) {
                if (!within(keep, job.getPath())) {
                    deleteQuietly(job.getPath());
                }
            }
        } catch (IOException ignored) {
            // best effort: the next prune tries again
        }
    }

    private static void deleteQuietly(Path path) {
        try {
            Folders.deleteQuietly(path);
        } catch (UncheckedIOException ignored) {
            // best effort: the next prune tries again
        }
    }
}
