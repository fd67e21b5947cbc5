package org.flinkss.runtime.checkpoint;

import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Deleting folders the project made (checkpoints, temporary folders, fragments). */
public final class Folders {

    private Folders() {}

    /**
     * Deletes what it can, ignoring files that vanish meanwhile (Flink cleaning its own temp
     * files).
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

    /**
     * Deletes a file or folder anywhere (a local one as {@link #deleteQuietly(Path)} does; on an
     * object store every object under it), ignoring what vanishes meanwhile.
     */
    public static void deleteQuietly(org.apache.flink.core.fs.Path path) {
        if (Storage.isLocal(path)) {
            deleteQuietly(Storage.localFile(path, "a folder"));
            return;
        }
        try {
            Storage.deleteTree(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + path + ": " + e.getMessage(), e);
        }
    }

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
}
