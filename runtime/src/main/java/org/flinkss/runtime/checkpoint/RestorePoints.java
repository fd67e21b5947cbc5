package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.FileStatus;

import org.flinkss.runtime.storage.ListedFile;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The states a query's next run can restore: Flink's retained checkpoints ({@code
 * checkpoints/<job>/chk-N}) and the savepoints its runs ended with ({@code savepoints/}). Each is a
 * folder with a {@code _metadata} file; they are ordered by that file's time.
 *
 * <p>The {@code ...Location} methods work on any storage ({@link CheckpointLayout#location()}, a
 * local folder or an object store) and name restore points as Flink's file systems do; the {@code
 * java.nio} ones serve a local directory only. On a local directory both give the same points.
 */
public final class RestorePoints {

    private final CheckpointLayout layout;

    public RestorePoints(CheckpointLayout layout) {
        this.layout = layout;
    }

    /** The newest complete checkpoint or savepoint on any storage ({@link #newest()}). */
    public Optional<org.apache.flink.core.fs.Path> newestLocation() {
        List<org.apache.flink.core.fs.Path> all = allLocations();
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /** Every complete checkpoint and savepoint on any storage, oldest first ({@link #all()}). */
    public List<org.apache.flink.core.fs.Path> allLocations() {
        if (!layout.isObjectStore()) {
            List<org.apache.flink.core.fs.Path> local = new ArrayList<>();
            all().forEach(p -> local.add(location(p)));
            return local;
        }
        List<Found> found = new ArrayList<>();
        for (org.apache.flink.core.fs.Path root :
                List.of(layout.checkpointsLocation(), layout.savepointsLocation())) {
            boolean savepoints = root.equals(layout.savepointsLocation());
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
                found.add(
                        new Found(
                                new org.apache.flink.core.fs.Path(root, relative),
                                file.modificationTime(),
                                savepoints));
            }
        }
        // An object's time may be in whole seconds: at a tie a savepoint comes after the
        // checkpoints (a run's savepoint is its last state), and a checkpoint after lower ones.
        found.sort(
                Comparator.comparingLong((Found f) -> f.time)
                        .thenComparing(f -> f.savepoint)
                        .thenComparingLong(f -> checkpointId(f.path)));
        List<org.apache.flink.core.fs.Path> points = new ArrayList<>();
        found.forEach(f -> points.add(f.path));
        return points;
    }

    /** A restore point found on an object store. */
    private static final class Found {
        final org.apache.flink.core.fs.Path path;
        final long time;
        final boolean savepoint;

        Found(org.apache.flink.core.fs.Path path, long time, boolean savepoint) {
            this.path = path;
            this.time = time;
            this.savepoint = savepoint;
        }
    }

    private static long checkpointId(org.apache.flink.core.fs.Path point) {
        String name = point.getName();
        try {
            return name.startsWith("chk-") ? Long.parseLong(name.substring(4)) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** A path's bucket-relative name without a trailing '/', whatever its scheme says. */
    private static String key(org.apache.flink.core.fs.Path path) {
        String p = path.toUri().getPath();
        return p.endsWith("/") && p.length() > 1 ? p.substring(0, p.length() - 1) : p;
    }

    /** Whether {@code inner} is {@code outer} or below it. */
    static boolean within(
            org.apache.flink.core.fs.Path inner, org.apache.flink.core.fs.Path outer) {
        return (key(inner) + "/").startsWith(key(outer) + "/");
    }

    /**
     * A local restore point as Flink's file systems name it: {@code file:/...}, without the
     * trailing '/' that {@link Path#toUri()} gives a folder (one point, one name).
     */
    public static org.apache.flink.core.fs.Path location(Path local) {
        return new org.apache.flink.core.fs.Path(
                "file", null, local.toAbsolutePath().normalize().toString());
    }

    /**
     * How a restore point is named in messages: a local one as its file (as before), one on an
     * object store as its URI.
     */
    public static String shown(org.apache.flink.core.fs.Path location) {
        return Storage.isLocal(location)
                ? Storage.localFile(location, "a restore point").toString()
                : location.toString();
    }

    /** When a restore point anywhere was completed, in epoch milliseconds (0 if unknown). */
    public static long timeMillis(org.apache.flink.core.fs.Path restorePoint) {
        if (Storage.isLocal(restorePoint)) {
            return time(Storage.localFile(restorePoint, "a restore point")).toMillis();
        }
        org.apache.flink.core.fs.Path metadata =
                new org.apache.flink.core.fs.Path(restorePoint, "_metadata");
        try {
            return metadata.getFileSystem().getFileStatus(metadata).getModificationTime();
        } catch (IOException e) {
            return 0;
        }
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

    /** Every complete checkpoint and savepoint, oldest first. */
    public List<Path> all() {
        List<Path> found = new ArrayList<>();
        for (Path root : List.of(layout.checkpoints(), layout.savepoints())) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try {
                // Flink deletes a finished job's checkpoints in the background: tolerate files
                // that vanish while we look.
                Files.walkFileTree(
                        root,
                        EnumSet.noneOf(FileVisitOption.class),
                        3,
                        new SimpleFileVisitor<>() {
                            @Override
                            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                                if (file.getFileName().toString().equals("_metadata")) {
                                    found.add(file.getParent());
                                }
                                return FileVisitResult.CONTINUE;
                            }

                            @Override
                            public FileVisitResult visitFileFailed(Path file, IOException e)
                                    throws IOException {
                                if (e instanceof NoSuchFileException) {
                                    return FileVisitResult.CONTINUE;
                                }
                                throw e;
                            }
                        });
            } catch (IOException e) {
                throw new UncheckedIOException("cannot scan " + root + ": " + e.getMessage(), e);
            }
        }
        found.sort(Comparator.comparing(RestorePoints::time));
        return found;
    }

    /** When a restore point (a folder with a {@code _metadata} file) was completed. */
    public static FileTime time(Path restorePoint) {
        try {
            return Files.getLastModifiedTime(restorePoint.resolve("_metadata"));
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }

    /** Completed checkpoint ids of one Flink job, from its retained checkpoint folders. */
    public List<Long> completedCheckpoints(String jobId) {
        List<Long> ids = new ArrayList<>();
        if (layout.isObjectStore()) {
            return completedCheckpointsOnObjectStore(jobId);
        }
        Path jobDir = layout.checkpointsOfJob(jobId);
        if (!Files.isDirectory(jobDir)) {
            return ids;
        }
        try (Stream<Path> s = Files.list(jobDir)) {
            s.filter(
                            p ->
                                    p.getFileName().toString().startsWith("chk-")
                                            && Files.exists(p.resolve("_metadata")))
                    .forEach(p -> ids.add(Long.parseLong(p.getFileName().toString().substring(4))));
        } catch (NoSuchFileException e) {
            return ids; // the job finished and Flink deleted its checkpoints while we looked
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ids.sort(Long::compare);
        return ids;
    }

    private List<Long> completedCheckpointsOnObjectStore(String jobId) {
        List<Long> ids = new ArrayList<>();
        try {
            for (FileStatus child : Storage.list(layout.checkpointsOfJobLocation(jobId))) {
                org.apache.flink.core.fs.Path p = child.getPath();
                if (p.getName().startsWith("chk-")
                        && Storage.exists(new org.apache.flink.core.fs.Path(p, "_metadata"))) {
                    long id = checkpointId(p);
                    if (id >= 0) {
                        ids.add(id);
                    }
                }
            }
        } catch (java.io.FileNotFoundException e) {
            return ids; // deleted by Flink while we looked
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ids.sort(Long::compare);
        return ids;
    }

    /**
     * Makes a savepoint taken outside this directory the query's ({@link #adopt(Path)}), on any
     * storage: one already in {@code savepoints/} is returned as it is; a local one is copied into
     * a local directory.
     *
     * @throws UncheckedIOException if it cannot be copied (into a directory on an object store,
     *     only a savepoint already in its {@code savepoints/} is taken)
     */
    public org.apache.flink.core.fs.Path adopt(org.apache.flink.core.fs.Path external) {
        if (layout.isObjectStore()
                && Storage.isObjectStore(external)
                && within(external, layout.savepointsLocation())) {
            return external;
        }
        if (!layout.isObjectStore() && Storage.isLocal(external)) {
            return location(adopt(Storage.localFile(external, "a savepoint")));
        }
        throw new UncheckedIOException(
                new IOException(
                        "cannot copy savepoint "
                                + external
                                + " into "
                                + layout.savepointsLocation()
                                + ": only a savepoint already in it is taken on an object store"));
    }

    /**
     * Copies a savepoint taken outside this directory (a {@code flink stop --savepointPath}) into
     * {@code savepoints/}, where it is the newest restore point; returns the copy. Canonical and
     * native savepoints are self-contained, so the copy restores like the original.
     */
    public Path adopt(Path external) {
        Path savepoints = layout.savepoints();
        if (external.toAbsolutePath().normalize().startsWith(savepoints)) {
            return external;
        }
        Path target = savepoints.resolve(external.getFileName().toString());
        Path staging = layout.dir().resolve(".adopting-" + external.getFileName());
        try {
            Folders.deleteRecursively(staging);
            try (Stream<Path> s = Files.walk(external)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Path to = staging.resolve(external.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(to);
                    } else {
                        Files.copy(p, to);
                    }
                }
            }
            Files.createDirectories(savepoints);
            Folders.deleteRecursively(target);
            // Whole or not at all: a half-copied folder must never be taken for a restore point.
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            Folders.deleteQuietly(staging);
            throw new UncheckedIOException(
                    "cannot copy savepoint "
                            + external
                            + " into "
                            + savepoints
                            + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * Keeps only what the next run restores from: {@code keep}. Older savepoints and the retained
     * checkpoints of earlier jobs go (RocksDB savepoints are self-contained), and so do job folders
     * whose checkpoints never completed (a run killed before its first one).
     */
    public void pruneExcept(org.apache.flink.core.fs.Path keep) {
        if (!layout.isObjectStore()) {
            pruneExcept(Storage.localFile(keep, "a restore point"));
            return;
        }
        for (org.apache.flink.core.fs.Path p : allLocations()) {
            if (!key(p).equals(key(keep))) {
                org.apache.flink.core.fs.Path owner =
                        key(p.getParent()).equals(key(layout.savepointsLocation()))
                                ? p
                                : p.getParent();
                if (!within(keep, owner)) {
                    deleteQuietly(owner);
                }
            }
        }
        try {
            for (FileStatus job : Storage.list(layout.checkpointsLocation())) {
                if (!within(keep, job.getPath())) {
                    deleteQuietly(job.getPath());
                }
            }
        } catch (IOException ignored) {
            // best effort: the next prune tries again
        }
    }

    private static void deleteQuietly(org.apache.flink.core.fs.Path path) {
        try {
            Folders.deleteQuietly(path);
        } catch (UncheckedIOException ignored) {
            // best effort: the next prune tries again
        }
    }

    /** {@link #pruneExcept(org.apache.flink.core.fs.Path)} of a local directory. */
    public void pruneExcept(Path keep) {
        for (Path p : all()) {
            if (!p.equals(keep)) {
                Path owner = p.getParent().equals(layout.savepoints()) ? p : p.getParent();
                if (!keep.startsWith(owner)) {
                    Folders.deleteQuietly(owner);
                }
            }
        }
        if (Files.isDirectory(layout.checkpoints())) {
            try (Stream<Path> s = Files.list(layout.checkpoints())) {
                s.filter(p -> !keep.startsWith(p)).forEach(Folders::deleteQuietly);
            } catch (IOException ignored) {
                // best effort: the next prune tries again
            }
        }
    }
}
