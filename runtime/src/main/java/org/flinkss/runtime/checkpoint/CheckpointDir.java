package org.flinkss.runtime.checkpoint;

import java.nio.file.Path;

/**
 * A query's checkpoint directory, by its parts: the {@link CheckpointLock lock} a run holds, the
 * {@link IdentityStore identity} in {@code metadata.json}, the {@link RestorePoints restore points}
 * and the {@link RunRecords records of runs}. Where each file is: {@link CheckpointLayout}.
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

    public IdentityStore identity() {
        return new IdentityStore(layout);
    }

    public RestorePoints restorePoints() {
        return new RestorePoints(layout);
    }

    public RunRecords runs() {
        return new RunRecords(layout);
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
