package org.flinkss.runtime.progress;

import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.RunScope;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Writes and reads the {@link Fragment}s of a run's checkpoints. */
public final class Fragments {

    private Fragments() {}

    /** Leaves {@code fragment} for checkpoint {@code checkpointId} of the run (atomically). */
    public static void write(RunScope scope, long checkpointId, Fragment fragment) {
        JsonFiles.write(scope.fragments(checkpointId).resolve(fragment.fileName()), fragment);
    }

    /** Every fragment left in one checkpoint's folder, in file-name order. */
    public static List<Fragment> read(Path checkpointFolder) {
        List<Fragment> fragments = new ArrayList<>();
        try (Stream<Path> files = Files.list(checkpointFolder)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                String name = f.getFileName().toString();
                if (!name.startsWith(".") && name.endsWith(".json")) {
                    fragments.add(JsonFiles.JSON.readValue(f.toFile(), Fragment.class));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read progress fragments in " + checkpointFolder + ": " + e.getMessage(),
                    e);
        }
        return fragments;
    }
}
