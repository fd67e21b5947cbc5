package org.flinkss.runtime.checkpoint;

import java.nio.file.Path;

/**
 * A query's checkpoint directory as the commands that work on it beside runs ({@code reset}, {@code
 * recompute}) see it: its folders and its {@link CheckpointLock lock}. Its other parts are the
 * {@link IdentityStore identity} in {@code metadata.json}, the {@link RestorePoints restore points}
 * and the {@link RunRecords records of runs}; where each file is: {@link CheckpointLayout}.
 */
public final class CheckpointDir {

    private final CheckpointLayout layout;

    public CheckpointDir(CheckpointLayout layout) {
        this.layout = layout;
    }

    public CheckpointLayout layout() {
        return layout;
    }

    public Path path() {
        return layout.dir();
    }

    public Path checkpoints() {
        return layout.checkpoints();
    }

    public Path savepoints() {
        return layout.savepoints();
    }

    /** Holds the directory for one run; a second run of the same query is refused. */
    public Lock lock(String queryName) {
        return new Lock(CheckpointLock.acquire(layout, queryName));
    }

    /**
     * The lock of a running query; closing it lets the next run start. It wraps a {@link
     * CheckpointLock} (which new code takes directly) for the callers written against it.
     */
    public static final class Lock implements AutoCloseable {
        private final CheckpointLock lock;

        private Lock(CheckpointLock lock) {
            this.lock = lock;
        }

        @Override
        public void close() {
            lock.close();
        }
    }
}
