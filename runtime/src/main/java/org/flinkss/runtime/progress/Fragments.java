package org.flinkss.runtime.progress;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.RunScope;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Writes and reads the {@link Fragment}s of a run's checkpoints. */
public final class Fragments {

    private Fragments() {}

    /** Leaves {@code fragment} for checkpoint {@code checkpointId} of the run (atomically). */
    public static void write(RunScope scope, long checkpointId, Fragment fragment) {
        JsonFiles.write(
                new Path(scope.fragmentsLocation(checkpointId), fragment.fileName()), fragment);
    }

    /** Every fragment left in one checkpoint's folder, in file-name order. */
    public static List<Fragment> read(java.nio.file.Path checkpointFolder) {
        return read(Storage.location(checkpointFolder));
    }

    /** Every fragment left in one checkpoint's folder anywhere, in file-name order. */
    public static List<Fragment> read(Path checkpointFolder) {
        List<Fragment> fragments = new ArrayList<>();
        try {
            List<FileStatus> files = Storage.list(checkpointFolder);
            files.sort(Comparator.comparing(f -> f.getPath().getName()));
            for (FileStatus f : files) {
                String name = f.getPath().getName();
                if (!name.startsWith(".") && name.endsWith(".json")) {
                    fragments.add(JsonFiles.read(f.getPath(), Fragment.class));
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
