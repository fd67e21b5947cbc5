package org.flinkss.runtime.checkpoint;

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
