package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * What {@code Storage} does differently on a local disk, where the local file system is the point:
 * the two atomic writes, which a system call makes atomic ({@code rename(2)}, {@code link(2)}) that
 * only a local file has, and deletes that walk again when a file vanishes meanwhile. They work on
 * {@code java.nio} files.
 */
@Internal
public final class LocalDisk {

    private LocalDisk() {}

    /**
     * A temporary file beside the target, forced to the disk, then an atomic rename over it, and
     * the folder forced too ({@link Fsync}): after a crash the file has the old content or the new,
     * never none or a part.
     */
    public static void replace(Path file, byte[] content) throws IOException {
        Files.createDirectories(file.getParent());
        Path temp = hiddenSibling(file);
        try {
            Fsync.writeNew(temp, content);
            Files.move(
                    temp,
                    file,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            Fsync.folder(file.getParent());
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * The content goes to a hidden temporary file beside the target, which is then hard-linked to
     * the target's name: {@code link(2)} fails with {@code EEXIST} atomically, unlike {@code
     * rename(2)}, which replaces an existing target; so this holds across threads and processes,
     * with no lock, and readers never see a part of the file. The temporary file is forced to the
     * disk before the link and the folder after it ({@link Fsync}): a crash cannot leave the name
     * on a file whose content did not reach the disk (a Delta commit of zero bytes).
     */
    public static boolean createIfAbsent(Path file, byte[] content) throws IOException {
        Files.createDirectories(file.getParent());
        Path temp = hiddenSibling(file);
        try {
            Fsync.writeNew(temp, content);
            try {
                Files.createLink(file, temp);
                Fsync.folder(file.getParent());
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            } catch (UnsupportedOperationException | FileSystemException e) {
                // A disk without hard links: O_EXCL creation is still atomic for the name, but a
                // reader could see the file while it is written (small files, one write call).
                try {
                    Fsync.writeNew(file, content);
                } catch (FileAlreadyExistsException exists) {
                    return false;
                }
                Fsync.folder(file.getParent());
                return true;
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * Deletes a local file or folder with what it holds, ignoring files that vanish meanwhile
     * (Flink cleaning its own temporary files): walks again, up to three times.
     */
    public static void deleteQuietly(Path path) {
        for (int attempt = 0; attempt < 3 && Files.exists(path); attempt++) {
            try {
                deleteRecursively(path);
            } catch (UncheckedIOException e) {
                // a file went away while we walked: walk again
            }
        }
    }

    /** Deletes a local file or folder with what it holds; nothing if it does not exist. */
    public static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> s = Files.walk(path)) {
            s.sorted(Comparator.reverseOrder())
                    .forEach(
                            p -> {
                                try {
                                    Files.deleteIfExists(p);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + path + ": " + e.getMessage(), e);
        }
    }

    private static Path hiddenSibling(Path file) {
        return file.resolveSibling("." + file.getFileName() + "." + UUID.randomUUID() + ".tmp");
    }
}
