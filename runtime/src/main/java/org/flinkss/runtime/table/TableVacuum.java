package org.flinkss.runtime.table;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.RunFence;
import org.flinkss.runtime.table.delta.VacuumResult;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code table vacuum}: Delta's {@code VACUUM} of a warehouse table that never deletes the data
 * files its writer staged and has not committed yet, whatever the retention and {@code --force}
 * say.
 *
 * <p>Why: a query's table writers put each batch's data files in the table's folder under their
 * final names (which start with the query's id) before the batch is committed; the commit then
 * names them. A vacuum with a short retention, forced, during a run used to delete them, and the
 * run's commit then named files that are gone (exit 0, table unreadable). A killed run's staged
 * files are needed too: its next run commits them again from the checkpoint it restores. The writer
 * cleans up what it staged and will never commit itself, at the end of its next run ({@link
 * Warehouse#deleteUncommitted}). Files that a version removed (superseded by complete mode, a
 * recompute, a reset) are not staged ones: vacuum deletes them once past the retention.
 */
public final class TableVacuum {

    /** How long after its client's last heartbeat a run counts as live (the job's own limit). */
    private static final Duration LIVE = Duration.ofSeconds(60);

    private final Warehouse warehouse;

    public TableVacuum(Warehouse warehouse) {
        this.warehouse = warehouse;
    }

    /**
     * What a vacuum did, and why it kept files.
     *
     * @param result the files deleted (or that a dry run would delete) and how many staged files
     *     were kept
     * @param keptWhy why the staged files were kept, naming the writer and whether its run is live;
     *     null if none was kept
     */
    public record Outcome(VacuumResult result, @Nullable String keptWhy) {}

    /** Vacuums {@code table}; see {@link org.flinkss.runtime.table.delta.DeltaTable#vacuum}. */
    public Outcome vacuum(String table, Duration retain, boolean force, boolean dryRun) {
        TableOwner owner = warehouse.owner(table);
        String queryId = owner.queryId();
        if (queryId == null) {
            // A command's table (or one converted without a writer yet): no run stages files.
            return new Outcome(warehouse.existing(table).vacuum(retain, force, dryRun), null);
        }
        // The writers' file names start with the query id (DataFileWriter.fileNamePrefix).
        String prefix = queryId + "-";
        VacuumResult result =
                warehouse.existing(table).vacuum(retain, force, dryRun, n -> n.startsWith(prefix));
        if (result.keptStaged() == 0) {
            return new Outcome(result, null);
        }
        return new Outcome(
                result,
                "staged by query '"
                        + owner.query()
                        + "' (query id "
                        + queryId
                        + ") for a batch it has not committed yet: "
                        + runState(owner)
                        + "; its run cleans up what it will never commit");
    }

    /** Whether the writer's run is live now, by the heartbeat of the run that holds its fence. */
    private String runState(TableOwner owner) {
        CheckpointLayout layout;
        try {
            layout = warehouse.checkpointOf(owner);
        } catch (RuntimeException e) {
            layout = null;
        }
        if (layout == null) {
            return "its next run commits them";
        }
        Optional<String> run = RunFence.owner(layout);
        if (run.isPresent()) {
            Path heartbeat = layout.heartbeat(run.get());
            try {
                long age =
                        System.currentTimeMillis()
                                - heartbeat
                                        .getFileSystem()
                                        .getFileStatus(heartbeat)
                                        .getModificationTime();
                if (age < LIVE.toMillis()) {
                    return "its run "
                            + run.get()
                            + " is live (heartbeat "
                            + Math.max(0, age / 1000)
                            + " s ago) and commits them";
                }
            } catch (IOException e) {
                // no heartbeat: the run ended (or was killed)
            }
        }
        return "no run of it is live now; its next run commits them from its checkpoint";
    }
}
