package org.flinkss.runtime.storage;

import org.apache.flink.core.fs.Path;

/**
 * A file found by {@link Storage#listFrom} or {@link Storage#listFilesBelow}: where it is, its size
 * and its modification time.
 */
public record ListedFile(Path path, long length, long modificationTime) {

    /** The file's name, the last part of its path. */
    public String name() {
        return path.getName();
    }
}
