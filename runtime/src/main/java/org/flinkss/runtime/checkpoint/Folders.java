package org.flinkss.runtime.checkpoint;

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
