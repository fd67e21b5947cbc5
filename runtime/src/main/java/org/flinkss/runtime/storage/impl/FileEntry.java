package org.flinkss.runtime.storage.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;

/** A file a listing found: where it is, its size and its modification time. */
@Internal
public record FileEntry(Path path, long length, long modificationTime) {

    /** The file's name, the last part of its path. */
    public String name() {
        return path.getName();
    }
}
