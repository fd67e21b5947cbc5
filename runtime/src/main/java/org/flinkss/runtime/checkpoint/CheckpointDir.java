package org.flinkss.runtime.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.QueryException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * What the runner does with a query's checkpoint directory (its files are laid out by {@link
 * CheckpointLayout}): hold it for one run, check and record the query's identity, find the newest
 * restore point, adopt a savepoint taken outside it, and prune what no restore needs.
 */
public final class CheckpointDir {

    private final CheckpointLayout layout;
    private final Path dir;

    public CheckpointDir(CheckpointLayout layout) {
        this.layout = layout;
        this.dir = layout.dir();
    }

    public CheckpointLayout layout() {
        return layout;
    }

    public Path path() {
        return dir;
    }

    public Path checkpoints() {
        return layout.checkpoints();
    }

    public Path savepoints() {
        return layout.savepoints();
    }

    /** Holds the directory for one run; a second run of the same query is refused. */
    public Lock lock(String queryName) {
        try {
            Files.createDirectories(dir);
            Path lockFile = layout.lockFile();
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
                lock = null;
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
                                + dir
                                + " ("
                                + holder
                                + "). Wait for that run to finish, or stop it, before starting"
                                + " another.");
            }
            Files.writeString(
                    layout.lockOwner(),
                    "pid " + ProcessHandle.current().pid() + ", started " + Instant.now(),
                    StandardCharsets.UTF_8);
            return new Lock(channel, lock);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot lock checkpoint " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The lock of a running query; closing it lets the next run start. */
    public static final class Lock implements AutoCloseable {
        private final FileChannel channel;
        private final FileLock lock;

        Lock(FileChannel channel, FileLock lock) {
            this.channel = channel;
            this.lock = lock;
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

    /**
     * Checks that this directory belongs to the query, or claims it for the query if it is new.
     * Returns the query id (kept across runs, as Spark's {@code id}).
     */
    public String checkIdentity(QueryIdentity identity) {
        Path meta = layout.metadata();
        try {
            if (Files.exists(meta)) {
                JsonNode stored = JsonFiles.JSON.readTree(meta.toFile());
                QueryIdentity existing = QueryIdentity.fromJson(stored);
                if (!existing.sameQuery(identity)) {
                    throw new QueryException(
                            "checkpoint "
                                    + dir
                                    + " belongs to query "
                                    + existing.describe()
                                    + ", but this is query "
                                    + identity.describe()
                                    + ". A checkpoint serves one query: changing sources, sinks or"
                                    + " stateful operators needs a new checkpoint. Start over with"
                                    + " 'reset "
                                    + identity.name()
                                    + "' (a new checkpoint, the target rebuilt) or use another"
                                    + " --base, and reprocess from bronze.");
                }
                String change = existing.columnChange(identity);
                if (change != null) {
                    throw new QueryException(
                            "checkpoint "
                                    + dir
                                    + " of query '"
                                    + identity.name()
                                    + "' "
                                    + change
                                    + ". A table's columns are part of its query's checkpoint: the"
                                    + " same checkpoint cannot go on with other columns. Start over"
                                    + " with 'reset "
                                    + identity.name()
                                    + "' (a new checkpoint, the table rebuilt with the new columns)"
                                    + " or use another --base, or run the query as it was when the"
                                    + " checkpoint was made.");
                }
                if (!existing.records().equals(identity.records())) {
                    // Same query, with record tables this version added: list them for reset
                    // (the columns stay as recorded; recordTables adds them once accepted).
                    ObjectNode node = existing.withRecords(identity.records()).toJson();
                    node.put("id", stored.path("id").asText());
                    JsonFiles.write(meta, node);
                }
                return stored.path("id").asText();
            }
            String id = UUID.randomUUID().toString();
            ObjectNode node = identity.toJson();
            node.put("id", id);
            JsonFiles.write(meta, node);
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + meta + ": " + e.getMessage(), e);
        }
    }

    /**
     * Adds the tables' columns to an identity recorded before they were part of it, so that later
     * runs check them. Call it once the tables have accepted the run's columns.
     */
    public void recordTables(QueryIdentity identity) {
        Path meta = layout.metadata();
        try {
            ObjectNode stored = (ObjectNode) JsonFiles.JSON.readTree(meta.toFile());
            if (!QueryIdentity.fromJson(stored).recordsTables() && identity.recordsTables()) {
                stored.set("tables", identity.toJson().get("tables"));
                JsonFiles.write(meta, stored);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + meta + ": " + e.getMessage(), e);
        }
    }

    /**
     * The newest complete checkpoint or savepoint (a folder with a {@code _metadata} file), or
     * empty for a first run. After a kill this is the last checkpoint that completed; an older
     * savepoint would replay batches that were already committed.
     */
    public Optional<Path> newestRestorePoint() {
        List<Path> candidates = restorePoints();
        return candidates.isEmpty()
                ? Optional.empty()
                : Optional.of(candidates.get(candidates.size() - 1));
    }

    /** Every complete checkpoint and savepoint, oldest first. */
    public List<Path> restorePoints() {
        List<Path> found = new ArrayList<>();
        for (Path root : List.of(checkpoints(), savepoints())) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try {
                // Flink deletes a finished job's checkpoints in the background: tolerate files
                // that vanish while we look.
                Files.walkFileTree(
                        root,
                        EnumSet.noneOf(FileVisitOption.class),
                        3,
                        new SimpleFileVisitor<>() {
                            @Override
                            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                                if (file.getFileName().toString().equals("_metadata")) {
                                    found.add(file.getParent());
                                }
                                return FileVisitResult.CONTINUE;
                            }

                            @Override
                            public FileVisitResult visitFileFailed(Path file, IOException e)
                                    throws IOException {
                                if (e instanceof NoSuchFileException) {
                                    return FileVisitResult.CONTINUE;
                                }
                                throw e;
                            }
                        });
            } catch (IOException e) {
                throw new UncheckedIOException("cannot scan " + root + ": " + e.getMessage(), e);
            }
        }
        found.sort(Comparator.comparing(CheckpointDir::metadataTime));
        return found;
    }

    public static FileTime metadataTime(Path checkpoint) {
        try {
            return Files.getLastModifiedTime(checkpoint.resolve("_metadata"));
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }

    /**
     * Copies a savepoint taken outside this directory (a {@code flink stop --savepointPath}) into
     * {@code savepoints/}, where it is the newest restore point; returns the copy. Canonical and
     * native savepoints are self-contained, so the copy restores like the original.
     */
    public Path adoptSavepoint(Path external) {
        Path target = savepoints().resolve(external.getFileName().toString());
        if (external.toAbsolutePath().normalize().startsWith(savepoints())) {
            return external;
        }
        Path staging = dir.resolve(".adopting-" + external.getFileName());
        try {
            Folders.deleteRecursively(staging);
            try (Stream<Path> s = Files.walk(external)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Path to = staging.resolve(external.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(to);
                    } else {
                        Files.copy(p, to);
                    }
                }
            }
            Files.createDirectories(savepoints());
            Folders.deleteRecursively(target);
            // Whole or not at all: a half-copied folder must never be taken for a restore point.
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            Folders.deleteQuietly(staging);
            throw new UncheckedIOException(
                    "cannot copy savepoint "
                            + external
                            + " into "
                            + savepoints()
                            + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /** Completed checkpoint ids of one Flink job, from its retained checkpoint folders. */
    public List<Long> completedCheckpoints(String jobId) {
        List<Long> ids = new ArrayList<>();
        Path jobDir = layout.checkpointsOfJob(jobId);
        if (!Files.isDirectory(jobDir)) {
            return ids;
        }
        try (Stream<Path> s = Files.list(jobDir)) {
            s.filter(
                            p ->
                                    p.getFileName().toString().startsWith("chk-")
                                            && Files.exists(p.resolve("_metadata")))
                    .forEach(p -> ids.add(Long.parseLong(p.getFileName().toString().substring(4))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ids.sort(Long::compare);
        return ids;
    }

    public void recordJob(String runId, String jobId) {
        ObjectNode node = JsonFiles.JSON.createObjectNode();
        node.put("runId", runId);
        node.put("jobId", jobId);
        node.put("started", Instant.now().toString());
        JsonFiles.write(layout.jobFile(runId), node);
    }

    public Optional<String> jobOf(String runId) {
        Path f = layout.jobFile(runId);
        if (!Files.exists(f)) {
            return Optional.empty();
        }
        try {
            return Optional.of(JsonFiles.JSON.readTree(f.toFile()).path("jobId").asText());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Keeps only what the next run restores from: the newest restore point. Older savepoints and
     * the retained checkpoints of earlier jobs go (RocksDB savepoints are self-contained).
     */
    public void pruneExcept(Path keep) {
        for (Path p : restorePoints()) {
            if (!p.equals(keep)) {
                Path owner = p.getParent().equals(savepoints()) ? p : p.getParent();
                if (!keep.startsWith(owner)) {
                    Folders.deleteQuietly(owner);
                }
            }
        }
        // Job folders whose checkpoints never completed (killed before the first one).
        if (Files.isDirectory(checkpoints())) {
            try (Stream<Path> s = Files.list(checkpoints())) {
                s.filter(p -> !keep.startsWith(p)).forEach(Folders::deleteQuietly);
            } catch (IOException ignored) {
                // best effort
            }
        }
        Folders.deleteQuietly(layout.runs());
    }
}
