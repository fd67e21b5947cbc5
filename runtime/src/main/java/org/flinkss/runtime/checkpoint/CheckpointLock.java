package org.flinkss.runtime.checkpoint;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.storage.Lease;
import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * Holds a query's checkpoint directory for one run: a second run of the same query, in this process
 * or another, is refused while the first holds it. Closing it lets the next run start.
 *
 * <p>On a local disk it is an operating system's file lock ({@code .lock}), which dies with a
 * killed process. On an object store, where no file lock reaches and several machines may run the
 * query, it is a {@link Lease} ({@code lease/lease-N}): held with an expiry that the run's client
 * pushes forward ({@link #renew}, from its heartbeat), marked released at the end, and taken over
 * once a killed holder's expiry passed (docs/object-storage.md).
 */
public final class CheckpointLock implements AutoCloseable {

    @Nullable private final FileChannel channel;
    @Nullable private final FileLock lock;
    @Nullable private final Lease lease;
    private final CheckpointLayout layout;
    private final String queryName;

    private CheckpointLock(
            CheckpointLayout layout,
            String queryName,
            @Nullable FileChannel channel,
            @Nullable FileLock lock,
            @Nullable Lease lease) {
        this.layout = layout;
        this.queryName = queryName;
        this.channel = channel;
        this.lock = lock;
        this.lease = lease;
    }

    /**
     * Takes the lock of {@code layout}'s directory (creating the directory), or refuses naming the
     * run that holds it; a command beside runs ({@code reset}, {@code recompute}) holds it so.
     */
    public static CheckpointLock acquire(CheckpointLayout layout, String queryName) {
        return acquire(layout, queryName, "command-" + UUID.randomUUID(), Lease.DEFAULT_TIME);
    }

    /**
     * Takes the lock for run {@code runId}, or refuses naming the run that holds it. On an object
     * store the lease lasts {@code leaseTime} unless {@link #renew renewed}.
     */
    public static CheckpointLock acquire(
            CheckpointLayout layout, String queryName, String runId, Duration leaseTime) {
        if (layout.isObjectStore()) {
            try {
                Lease lease = Lease.acquire(layout.lease(), runId, leaseTime);
                return new CheckpointLock(layout, queryName, null, null, lease);
            } catch (Lease.HeldException e) {
                throw running(layout, queryName, e.holder().describe(), e);
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot take the lease of checkpoint " + layout + ": " + e.getMessage(), e);
            }
        }
        // An OS file lock, which only a local disk has: the lock files as java.nio files. The OS
        // releases the lock when the process dies, kill -9 included.
        Path lockFile = Storage.localFile(layout.lockFile(), "a checkpoint's lock").toPath();
        Path lockOwner = Storage.localFile(layout.lockOwner(), "a checkpoint's lock").toPath();
        try {
            Files.createDirectories(lockFile.getParent());
            FileChannel channel =
                    FileChannel.open(
                            lockFile,
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
                        Files.exists(lockOwner)
                                ? Files.readString(lockOwner, StandardCharsets.UTF_8).trim()
                                : "another process";
                throw running(layout, queryName, holder, null);
            }
            Files.writeString(
                    lockOwner,
                    "pid " + ProcessHandle.current().pid() + ", started " + Instant.now(),
                    StandardCharsets.UTF_8);
            return new CheckpointLock(layout, queryName, channel, lock, null);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot lock checkpoint " + layout + ": " + e.getMessage(), e);
        }
    }

    /**
     * Keeps holding the directory: pushes an object store's lease forward (a file lock needs
     * nothing).
     *
     * @throws QueryException if the lease expired and another run took it over: this run must stop
     * @throws IOException if the object store could not be reached (the next renewal tries again)
     */
    public void renew() throws IOException {
        if (lease == null) {
            return;
        }
        try {
            lease.renew();
        } catch (Lease.HeldException e) {
            throw new QueryException(
                    "query '"
                            + queryName
                            + "' lost its checkpoint "
                            + layout
                            + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /** Whether this is a lease that its run must renew (the directory is on an object store). */
    public boolean needsRenewal() {
        return lease != null;
    }

    private static QueryException running(
            CheckpointLayout layout, String queryName, String holder, @Nullable Exception cause) {
        return new QueryException(
                "query '"
                        + queryName
                        + "' is already running on checkpoint "
                        + layout
                        + " ("
                        + holder
                        + "). Wait for that run to finish, or stop it, before starting"
                        + " another."
                        + (layout.isObjectStore()
                                ? " A run that died is taken over once its lease expires."
                                : ""),
                cause);
    }

    @Override
    public void close() {
        if (lease != null) {
            try {
                lease.close();
            } catch (IOException ignored) {
                // unreleased, the lease expires: the next run takes it over then
            }
            return;
        }
        try {
            lock.release();
            channel.close();
        } catch (IOException ignored) {
            // the OS releases it with the process anyway
        }
    }
}
