package org.flinkss.runtime.checkpoint;

import org.flinkss.runtime.QueryException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * Holds a query's checkpoint directory for one run: a second run of the same query, in this process
 * or another, is refused while the first holds it. Closing it lets the next run start; the
 * operating system releases it with a killed process.
 */
public final class CheckpointLock implements AutoCloseable {

    private final FileChannel channel;
    private final FileLock lock;

    private CheckpointLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code layout}'s directory (creating the directory), or refuses naming the
     * run that holds it.
     */
    public static CheckpointLock acquire(CheckpointLayout layout, String queryName) {
        try {
            Files.createDirectories(layout.dir());
            FileChannel channel =
                    FileChannel.open(
                            layout.lockFile(),
                            StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE,
                            StandardOpenOption.READ);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // held by this process
            }
            if (lock == null) {
                channel.close();
                String holder =
                        Files.exists(layout.lockOwner())
                                ? Files.readString(layout.lockOwner(), StandardCharsets.UTF_8)
                                        .trim()
                                : "another process";
                throw new QueryException(
                        "query '"
                                + queryName
                                + "' is already running on checkpoint "
                                + layout.dir()
                                + " ("
                                + holder
                                + "). Wait for that run to finish, or stop it, before starting"
                                + " another.");
            }
            Files.writeString(
                    layout.lockOwner(),
                    "pid " + ProcessHandle.current().pid() + ", started " + Instant.now(),
                    StandardCharsets.UTF_8);
            return new CheckpointLock(channel, lock);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot lock checkpoint " + layout.dir() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException ignored) {
            // the OS releases it with the process anyway
        }
    }
}
