package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.QueryException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * {@code table repair}: a table whose Delta log is damaged ({@link DeltaLogDamage}) falls back to
 * its last readable version. The damaged log files, and the later ones that depend on them, are
 * moved into {@code <table>/_damaged_log/<time>/} (a folder Delta readers and vacuum skip, as every
 * name that starts with {@code _}); nothing is deleted, so they can be looked at or put back.
 */
public final class DeltaLogRepair {

    /** The folder, inside the table's, that damaged log files are moved into. */
    public static final String FOLDER = "_damaged_log";

    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private DeltaLogRepair() {}

    /** What a repair did: the damage it found (if any) and where it moved the files. */
    public record Repaired(Optional<DeltaLogDamage> damage, Optional<Path> movedTo) {}

    /** Repairs the table at {@code tablePath}; a table with nothing damaged is left as it is. */
    public static Repaired repair(String tablePath) {
        try {
            Path log = new Path(tablePath, "_delta_log");
            if (!log.getFileSystem().exists(log)) {
                throw new IllegalArgumentException(
                        "no Delta table at " + tablePath + " (no _delta_log): nothing to repair");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + tablePath, e);
        }
        Optional<DeltaLogDamage> found = DeltaLogDamage.find(tablePath);
        if (found.isEmpty()) {
            return new Repaired(found, Optional.empty());
        }
        DeltaLogDamage damage = found.get();
        if (damage.fallbackVersion() < 0) {
            throw new QueryException(damage.message());
        }
        Path target = new Path(new Path(tablePath, FOLDER), STAMP.format(Instant.now()));
        try {
            FileSystem fs = target.getFileSystem();
            fs.mkdirs(target);
            for (Path file : damage.files()) {
                Path moved = new Path(target, file.getName());
                if (!fs.rename(file, moved)) {
                    throw new QueryException(
                            "could not move "
                                    + file
                                    + " to "
                                    + moved
                                    + ": move it there yourself, then run 'table repair' again");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move damaged log files into " + target, e);
        }
        return new Repaired(found, Optional.of(target));
    }
}
