package org.flinkss.runtime.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A micro-batch that a table committer did not commit because the table already held it for the
 * query (a batch replayed after a restore from an older checkpoint, or from none): what the run
 * reports as {@code batch N already committed to <table>: skipped}. The committers of a run leave
 * one record per table and batch in the {@link #log} {@code commits/<run>/} ({@code <table>-<batch,
 * 19 digits>.json}) and the run's driver reads them when the run is over.
 *
 * @param committedBatch the newest batch of the query the table held
 */
public record SkippedCommit(String table, long batchId, long committedBatch) {

    /** The records the committers of run {@code runId} leave, by {@link #key}. */
    public static CheckpointLog<String, SkippedCommit> log(CheckpointLayout layout, String runId) {
        return new CheckpointLog<>(
                layout.commitReports(runId),
                CheckpointLayout.SKIPPED_COMMITS,
                LogCodec.json(SkippedCommit.class));
    }

    /** This record's key in its run's log: one per table and batch. */
    public String key() {
        return table + "-" + String.format("%019d", batchId);
    }

    /** The records a run's committers left, by batch then table. */
    public static List<SkippedCommit> readAll(CheckpointLayout layout, String runId) {
        CheckpointLog<String, SkippedCommit> log = log(layout, runId);
        List<SkippedCommit> all;
        try {
            all = new ArrayList<>(log.all());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the commit reports in " + log + ": " + e.getMessage(), e);
        }
        all.sort(
                Comparator.comparingLong(SkippedCommit::batchId)
                        .thenComparing(SkippedCommit::table));
        return all;
    }

    /** Forgets the reports of every run (read, or left by killed runs). */
    public static void clearAll(CheckpointLayout layout) {
        Folders.deleteQuietly(layout.commitReports());
    }
}
