package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A micro-batch that a table committer did not commit because the table already held it for the
 * query (a batch replayed after a restore from an older checkpoint, or from none): what the run
 * reports as {@code batch N already committed to <table>: skipped}. The committers of a run leave
 * one record per table and batch in {@code commits/<run>/} ({@link CheckpointLayout#commitReports})
 * and the run's driver reads them when the run is over.
 *
 * @param committedBatch the newest batch of the query the table held
 */
public record SkippedCommit(String table, long batchId, long committedBatch) {

    /** Leaves this record for run {@code scope}'s driver. */
    public void write(RunScope scope) {
        JsonFiles.write(
                new Path(
                        scope.layout().commitReportsLocation(scope.runId()),
                        table + "-" + String.format("%019d", batchId) + ".json"),
                this);
    }

    /** The records a run's committers left, by batch then table. */
    public static List<SkippedCommit> readAll(CheckpointLayout layout, String runId) {
        List<SkippedCommit> all = new ArrayList<>();
        try {
            for (FileStatus f : Storage.list(layout.commitReportsLocation(runId))) {
                String name = f.getPath().getName();
                if (name.endsWith(".json") && !name.startsWith(".")) {
                    all.add(JsonFiles.read(f.getPath(), SkippedCommit.class));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the commit reports in "
                            + layout.commitReportsLocation(runId)
                            + ": "
                            + e.getMessage(),
                    e);
        }
        all.sort(
                Comparator.comparingLong(SkippedCommit::batchId)
                        .thenComparing(SkippedCommit::table));
        return all;
    }

    /** Forgets the reports of every run (read, or left by killed runs). */
    public static void clearAll(CheckpointLayout layout) {
        Folders.deleteQuietly(layout.commitReportsLocation());
    }
}
