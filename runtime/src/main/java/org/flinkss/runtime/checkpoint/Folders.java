package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.storage.impl.LocalDisk;

import java.io.IOException;
import java.io.UncheckedIOException;

/** Deleting folders the project made (checkpoints, temporary folders, fragments). */
public final class Folders {

    private Folders() {}

    /**
     * Deletes a file or folder anywhere (a local one walked again when a file vanishes meanwhile,
     * as Flink cleans its own temporary files; on an object store every object under it).
     */
    public static void deleteQuietly(Path path) {
        if (Storage.isLocal(path)) {
            LocalDisk.deleteQuietly(Storage.localFile(path, "a folder").toPath());
            return;
        }
        try {
            Storage.deleteTree(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + path + ": " + e.getMessage(), e);
        }
    }
}
