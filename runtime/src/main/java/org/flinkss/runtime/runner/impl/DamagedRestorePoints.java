package org.flinkss.runtime.runner.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.Checkpoints;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.storage.Storage;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Checks, before a run restores, that the {@code _metadata} of the restore point it would take can
 * be read (Flink's own reader), from the newest down: a truncated or otherwise damaged one (a disk
 * that filled up, a copy cut short) would fail the job with an {@code EOFException} naming no file.
 * A damaged restore point is set aside into {@code damaged/}, saying so, and the previous one is
 * taken; if none is intact the run stops with one line naming the file and the way out ({@code
 * reset}).
 */
@Internal
public final class DamagedRestorePoints {

    private final CheckpointLayout layout;
    private final RestorePoints restorePoints;
    private final String queryName;
    private final PrintStream out;

    public DamagedRestorePoints(
            CheckpointLayout layout,
            RestorePoints restorePoints,
            String queryName,
            PrintStream out) {
        this.layout = layout;
        this.restorePoints = restorePoints;
        this.queryName = queryName;
        this.out = out;
    }

    /**
     * Sets aside the damaged restore points newer than the newest intact one.
     *
     * @throws QueryException if there are restore points and none is intact
     */
    public void setAside() {
        List<Path> all = restorePoints.all();
        List<String> damaged = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0; i--) {
            Path point = all.get(i);
            Optional<String> problem = problem(point);
            if (problem.isEmpty()) {
                if (!damaged.isEmpty()) {
                    out.println(
                            "warning: query '"
                                    + queryName
                                    + "': "
                                    + String.join("; ", damaged)
                                    + ". Restoring from the previous restore point, "
                                    + RestorePoints.shown(point)
                                    + ", instead: a batch committed after it, if any, is"
                                    + " processed again.");
                }
                return;
            }
            String aside = setAside(point);
            damaged.add(
                    RestorePoints.shown(metadata(point))
                            + " cannot be read ("
                            + problem.get()
                            + "): moved to "
                            + aside);
        }
        if (!damaged.isEmpty()) {
            throw new QueryException(
                    "query '"
                            + queryName
                            + "': "
                            + String.join("; ", damaged)
                            + ". No other checkpoint or savepoint in "
                            + layout
                            + " is intact, so its state cannot be restored. Start over with"
                            + " 'reset "
                            + queryName
                            + "' (the checkpoint deleted, its tables emptied; the next run"
                            + " reprocesses everything), or put back an intact copy of that"
                            + " folder.");
        }
    }

    /**
     * What {@link #setAside} would move aside, newest first, moving nothing ({@code run
     * --dry-run}): the restore points newer than the newest readable one, each with why.
     */
    public List<String> wouldSetAside() {
        List<Path> all = restorePoints.all();
        List<String> damaged = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0; i--) {
            Optional<String> problem = problem(all.get(i));
            if (problem.isEmpty()) {
                break;
            }
            damaged.add(
                    RestorePoints.shown(metadata(all.get(i)))
                            + " cannot be read ("
                            + problem.get()
                            + ")");
        }
        return damaged;
    }

    /** Why Flink could not read a restore point's {@code _metadata} on any storage. */
    static Optional<String> problem(Path restorePoint) {
        Path metadata = metadata(restorePoint);
        try (InputStream file = metadata.getFileSystem().open(metadata);
                DataInputStream in = new DataInputStream(new BufferedInputStream(file))) {
            Checkpoints.loadCheckpointMetadata(
                    in,
                    DamagedRestorePoints.class.getClassLoader(),
                    restorePoint.toUri().toString());
            return Optional.empty();
        } catch (EOFException e) {
            return Optional.of("truncated: it ends after " + size(metadata) + " bytes");
        } catch (IOException | RuntimeException e) {
            return Optional.of(
                    e.getClass().getSimpleName()
                            + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    private static Path metadata(Path point) {
        return new Path(point, "_metadata");
    }

    private static String size(Path file) {
        try {
            return Long.toString(file.getFileSystem().getFileStatus(file).getLen());
        } catch (IOException e) {
            return "?";
        }
    }

    /** Moves a damaged restore point out of what runs restore from; returns where, as shown. */
    private String setAside(Path location) {
        if (!layout.isObjectStore()) {
            return setAsideLocally(Storage.localFile(location, "a restore point")).toString();
        }
        String name =
                location.getParent().getName().equals("savepoints")
                                && location.getParent().getParent().equals(layout.location())
                        ? location.getName()
                        : location.getParent().getName() + "-" + location.getName();
        Path target = new Path(layout.damaged(), name);
        try {
            // S3 has no rename: the objects are copied, then deleted.
            Folders.deleteQuietly(target);
            if (!location.getFileSystem().rename(location, target)) {
                throw new IOException("the file system refused to move it");
            }
            return target.toString();
        } catch (IOException | RuntimeException e) {
            throw new QueryException(
                    "query '"
                            + queryName
                            + "': "
                            + metadata(location)
                            + " cannot be read, and it cannot be moved aside to "
                            + target
                            + " ("
                            + e
                            + "). Delete "
                            + location
                            + " and run again.",
                    e);
        }
    }

    /** On a local disk, one rename (what a local file system has and an object store has not). */
    private File setAsideLocally(File point) {
        File savepoints = Storage.localFile(layout.savepoints(), "a checkpoint");
        String name =
                point.getParentFile().equals(savepoints)
                        ? point.getName()
                        : point.getParentFile().getName() + "-" + point.getName();
        File target = new File(Storage.localFile(layout.damaged(), "a checkpoint"), name);
        try {
            Files.createDirectories(target.toPath().getParent());
            Files.move(point.toPath(), target.toPath(), StandardCopyOption.REPLACE_EXISTING);
            return target;
        } catch (IOException e) {
            throw new QueryException(
                    "query '"
                            + queryName
                            + "': "
                            + new File(point, "_metadata")
                            + " cannot be read, and it cannot be moved aside to "
                            + target
                            + " ("
                            + e
                            + "). Move or delete "
                            + point
                            + " and run again.",
                    e);
        }
    }
}
