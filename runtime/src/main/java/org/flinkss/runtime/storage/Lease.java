package org.flinkss.runtime.storage;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.NoSuchFileException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One holder at a time for a folder on any storage, across machines: the lock of a checkpoint on an
 * object store, where an operating system's file lock cannot reach.
 *
 * <p>The lease is a series of small objects {@code <folder>/lease-<generation>}, each written once
 * with {@link Storage#createIfAbsent}; the one of the highest generation is the current lease. It
 * holds the holder's host, pid, run id and an expiry, which the holder's heartbeat pushes forward
 * ({@link #renew}). Acquiring:
 *
 * <ul>
 *   <li>no lease object, or the current one released or expired: create generation {@code n+1} (0
 *       when there is none) only if absent. Of two runs taking over the same expired lease, exactly
 *       one creates {@code n+1}; the other is refused, naming the winner.
 *   <li>the current one held and not expired: refused, naming the holder and when it expires.
 * </ul>
 *
 * <p>Why generations rather than one object replaced: a takeover by "delete the expired object,
 * then create it if absent" races (run A deletes and creates; run B, which read the same expired
 * lease, then deletes A's new one and creates its own: both hold it), and S3 has no delete that is
 * conditional on the content read. Creating the next generation is a single conditional put, so
 * exactly one run wins it. A holder renews by rewriting its own generation (one PUT, atomic) after
 * checking that no later generation exists; if one does, its lease expired and was taken over, and
 * {@link #renew} says so (the run must stop). Lower generations are deleted by the next holder;
 * since a deleted generation could be created again by a run whose listing missed the newer ones, a
 * run that has created its generation lists once more and gives up if a higher one exists.
 *
 * <p>Expiry is the holder's clock plus the lease time; a taker compares it with its own clock, so
 * the lease time must be well above both the heartbeat interval and the clocks' difference.
 */
public final class Lease implements AutoCloseable {

    /** The default lease time: six heartbeats of 10 s may be missed before a takeover. */
    public static final Duration DEFAULT_TIME = Duration.ofSeconds(60);

    private static final Pattern NAME = Pattern.compile("lease-(\\d{10})");

    private final Path folder;
    private final long generation;
    private final Holder holder;
    private final Duration time;
    private final Clock clock;
    private Instant expires;
    private boolean released;

    private Lease(
            Path folder,
            long generation,
            Holder holder,
            Duration time,
            Clock clock,
            Instant expires) {
        this.folder = folder;
        this.generation = generation;
        this.holder = holder;
        this.time = time;
        this.clock = clock;
        this.expires = expires;
    }

    /** Who holds a lease, until when; {@code released} once its holder let it go. */
    public record Holder(String host, long pid, String runId, Instant expires, boolean released) {

        /** One line for an error message: host, pid, run and expiry. */
        public String describe() {
            return "run "
                    + runId
                    + " of pid "
                    + pid
                    + " on "
                    + host
                    + (released ? ", released" : ", lease until " + expires);
        }

        String encode() {
            return "host="
                    + host
                    + "\npid="
                    + pid
                    + "\nrun="
                    + runId
                    + "\nexpires="
                    + expires
                    + "\nreleased="
                    + released
                    + "\n";
        }

        static Holder decode(String text) {
            String host = "?";
            String run = "?";
            long pid = -1;
            Instant expires = Instant.EPOCH;
            boolean released = false;
            for (String line : text.split("\n")) {
                int eq = line.indexOf('=');
                if (eq < 0) {
                    continue;
                }
                String value = line.substring(eq + 1).trim();
                switch (line.substring(0, eq)) {
                    case "host" -> host = value;
                    case "pid" -> pid = Long.parseLong(value);
                    case "run" -> run = value;
                    case "expires" -> expires = Instant.parse(value);
                    case "released" -> released = Boolean.parseBoolean(value);
                    default -> {}
                }
            }
            return new Holder(host, pid, run, expires, released);
        }
    }

    /** Thrown when another run holds the lease (or took it over). */
    public static final class HeldException extends IOException {
        private final Holder holder;

        HeldException(String message, Holder holder) {
            super(message);
            this.holder = holder;
        }

        public Holder holder() {
            return holder;
        }
    }

    /** Takes the lease of {@code folder} for run {@code runId} of this process. */
    public static Lease acquire(Path folder, String runId) throws IOException {
        return acquire(folder, runId, DEFAULT_TIME);
    }

    /**
     * Takes the lease of {@code folder} for run {@code runId} of this process, for {@code time}.
     */
    public static Lease acquire(Path folder, String runId, Duration time) throws IOException {
        return acquire(folder, runId, time, Clock.systemUTC(), thisHost(), thisPid());
    }

    /**
     * Takes the lease of {@code folder}, or throws {@link HeldException} naming the holder when
     * another run holds it (its lease not expired, not released).
     */
    public static Lease acquire(
            Path folder, String runId, Duration time, Clock clock, String host, long pid)
            throws IOException {
        Objects.requireNonNull(runId, "runId");
        for (int attempt = 1; ; attempt++) {
            try {
                return tryAcquire(folder, runId, time, clock, host, pid);
            } catch (FileNotFoundException | NoSuchFileException e) {
                // A generation listed a moment ago was deleted by the run that took over a newer
                // one: look again.
                if (attempt >= 10) {
                    throw e;
                }
            }
        }
    }

    private static Lease tryAcquire(
            Path folder, String runId, Duration time, Clock clock, String host, long pid)
            throws IOException {
        Optional<Long> current = currentGeneration(folder);
        long next = 0;
        if (current.isPresent()) {
            Holder holder = read(folder, current.get());
            if (!holder.released() && holder.expires().isAfter(clock.instant())) {
                throw held(folder, holder);
            }
            next = current.get() + 1;
        }
        Instant expires = clock.instant().plus(time);
        Holder mine = new Holder(host, pid, runId, expires, false);
        if (!Storage.createIfAbsent(objectOf(folder, next), mine.encode().getBytes(UTF8))) {
            // Another run took the same generation between our read and our write.
            throw held(folder, read(folder, next));
        }
        // A listing that missed the newest generation (an object store's listing cut short while
        // the winner deleted the generation before it) lets a run create a lower, deleted one:
        // the highest generation holds the lease, so a run that sees a higher one has lost.
        Optional<Long> newest = currentGeneration(folder);
        if (newest.isPresent() && newest.get() > next) {
            throw held(folder, read(folder, newest.get()));
        }
        Lease lease = new Lease(folder, next, mine, time, clock, expires);
        lease.deleteEarlierGenerations();
        return lease;
    }

    /** The current holder of {@code folder}'s lease, if any lease object exists. */
    public static Optional<Holder> holderOf(Path folder) throws IOException {
        Optional<Long> current = currentGeneration(folder);
        return current.isEmpty() ? Optional.empty() : Optional.of(read(folder, current.get()));
    }

    /**
     * Pushes the expiry forward (the client's heartbeat calls it).
     *
     * @throws HeldException if the lease expired and another run took it over: this run no longer
     *     holds the folder and must stop
     */
    public synchronized void renew() throws IOException {
        if (released) {
            throw new IllegalStateException("lease " + objectOf(folder, generation) + " released");
        }
        Optional<Long> current = currentGeneration(folder);
        if (current.isPresent() && current.get() > generation) {
            throw new HeldException(
                    "lost the lease of "
                            + folder
                            + ": it expired at "
                            + expires
                            + " (no renewal for "
                            + time
                            + ") and "
                            + read(folder, current.get()).describe()
                            + " took it over. Stop this run: two runs must not write one"
                            + " checkpoint",
                    read(folder, current.get()));
        }
        expires = clock.instant().plus(time);
        Storage.replace(
                objectOf(folder, generation),
                new Holder(holder.host(), holder.pid(), holder.runId(), expires, false)
                        .encode()
                        .getBytes(UTF8));
    }

    /** The holder this lease names. */
    public Holder holder() {
        return holder;
    }

    /** Marks the lease released, so that the next run takes it at once. */
    @Override
    public synchronized void close() throws IOException {
        if (released) {
            return;
        }
        released = true;
        Optional<Long> current = currentGeneration(folder);
        if (current.isPresent() && current.get() > generation) {
            return; // taken over: not ours to release
        }
        Storage.replace(
                objectOf(folder, generation),
                new Holder(holder.host(), holder.pid(), holder.runId(), expires, true)
                        .encode()
                        .getBytes(UTF8));
    }

    private void deleteEarlierGenerations() throws IOException {
        for (long g : generations(folder)) {
            if (g < generation) {
                Storage.delete(objectOf(folder, g));
            }
        }
    }

    private static HeldException held(Path folder, Holder holder) {
        return new HeldException(
                folder
                        + " is held by "
                        + holder.describe()
                        + ". Wait for that run to finish, or stop it; a holder that died is taken"
                        + " over once its lease expires",
                holder);
    }

    private static Holder read(Path folder, long generation) throws IOException {
        return Holder.decode(Storage.readText(objectOf(folder, generation)));
    }

    private static Optional<Long> currentGeneration(Path folder) throws IOException {
        return generations(folder).stream().max(Long::compare);
    }

    private static List<Long> generations(Path folder) throws IOException {
        List<Long> out = new ArrayList<>();
        for (FileStatus child : Storage.list(folder)) {
            Matcher m = NAME.matcher(child.getPath().getName());
            if (m.matches() && !child.isDir()) {
                out.add(Long.parseLong(m.group(1)));
            }
        }
        return out;
    }

    static Path objectOf(Path folder, long generation) {
        return new Path(folder, String.format("lease-%010d", generation));
    }

    private static String thisHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }

    private static long thisPid() {
        return ProcessHandle.current().pid();
    }

    private static final java.nio.charset.Charset UTF8 = java.nio.charset.StandardCharsets.UTF_8;
}
