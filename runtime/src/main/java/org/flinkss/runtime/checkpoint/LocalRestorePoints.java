package org.flinkss.runtime.checkpoint;

import org.flinkss.runtime.storage.impl.LocalDisk;

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
import java.util.stream.Stream;

/**
 * {@link RestorePoints} of a checkpoint directory on a local disk, where the local file system is
 * the point: the walk tolerates the files Flink deletes in the background while it looks, a
 * savepoint taken elsewhere is adopted with one atomic rename, and the scan stops three levels down
 * instead of listing every shared RocksDB file of an incremental checkpoint.
 */
final class LocalRestorePoints {

    private final Path dir;
    private final Path checkpoints;
    private final Path savepoints;

    LocalRestorePoints(Path dir, Path checkpoints, Path savepoints) {
        this.dir = dir;
        this.checkpoints = checkpoints;
        this.savepoints = savepoints;
    }

    /** Every complete checkpoint and savepoint, oldest first. */
    List<Path> all() {
        List<Path> found = new ArrayList<>();
        for (Path root : List.of(checkpoints, savepoints)) {
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
        found.sort(Comparator.comparing(LocalRestorePoints::time));
        return found;
    }

    /** When a restore point (a folder with a {@code _metadata} file) was completed. */
    static FileTime time(Path restorePoint) {
        try {
            return Files.getLastModifiedTime(restorePoint.resolve("_metadata"));
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }

    /** Completed checkpoint ids of one Flink job, from its retained checkpoint folders. */
    List<Long> completedCheckpoints(Path jobDir) {
        List<Long> ids = new ArrayList<>();
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
    Path adopt(Path external) {
        if (external.toAbsolutePath().normalize().startsWith(savepoints)) {
            return external;
        }
        Path target = savepoints.resolve(external.getFileName().toString());
        Path staging = dir.resolve(".adopting-" + external.getFileName());
        try {
            LocalDisk.deleteRecursively(staging);
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
            LocalDisk.deleteRecursively(target);
            // Whole or not at all: a half-copied folder must never be taken for a restore point.
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            LocalDisk.deleteQuietly(staging);
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

    /** {@link RestorePoints#pruneExcept} of a local directory. */
    void pruneExcept(Path keep) {
        for (Path p : all()) {
            if (!p.equals(keep)) {
                Path owner = p.getParent().equals(savepoints) ? p : p.getParent();
                if (!keep.startsWith(owner)) {
                    LocalDisk.deleteQuietly(owner);
                }
            }
        }
        if (Files.isDirectory(checkpoints)) {
            try (Stream<Path> s = Files.list(checkpoints)) {
                s.filter(p -> !keep.startsWith(p)).forEach(LocalDisk::deleteQuietly);
            } catch (IOException ignored) {
                // best effort: the next prune tries again
            }
        }
    }
}
