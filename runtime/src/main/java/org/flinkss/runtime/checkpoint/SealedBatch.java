package org.flinkss.runtime.checkpoint;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.Optional;

/**
 * Which micro-batches a source had sealed when it took part in one checkpoint: every batch up to
 * {@code lastSealed} had all its records and its watermark emitted before that checkpoint's
 * barrier, and no later batch had started (a batch starts only after a checkpoint holding the
 * previous one completed). A source's split enumerator writes one for every checkpoint, before the
 * checkpoint's barriers leave the readers; a table committer reads it in its own snapshot of the
 * same checkpoint and so knows that the files it staged up to that barrier close batch {@code
 * lastSealed}.
 *
 * <p>Kept in {@code runs/<run>/sealed-<source>/} of the checkpoint directory ({@link
 * CheckpointLayout#sealedBatch}), one small file per checkpoint; a source forgets those older than
 * a completed checkpoint.
 *
 * @param lastSealed the newest sealed batch id, -1 if none yet
 */
public record SealedBatch(String source, long checkpointId, long lastSealed) {

    /** Leaves this record for its checkpoint of the run (atomically). */
    public void write(RunScope scope) {
        JsonFiles.write(
                scope.layout().sealedBatchLocation(scope.runId(), source, checkpointId), this);
    }

    /** The record source {@code source} left for checkpoint {@code checkpointId}, if any. */
    public static Optional<SealedBatch> read(RunScope scope, String source, long checkpointId) {
        Path file = scope.layout().sealedBatchLocation(scope.runId(), source, checkpointId);
        try {
            return Optional.of(JsonFiles.read(file, SealedBatch.class));
        } catch (NoSuchFileException | java.io.FileNotFoundException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** Deletes the records of checkpoints before {@code checkpointId}: none will be read again. */
    public static void forgetBefore(RunScope scope, String source, long checkpointId) {
        Path dir = scope.layout().sealedBatchesLocation(scope.runId(), source);
        String keep =
                scope.layout().sealedBatchLocation(scope.runId(), source, checkpointId).getName();
        try {
            for (FileStatus f : Storage.list(dir)) {
                String name = f.getPath().getName();
                if (!name.startsWith(".") && name.compareTo(keep) < 0) {
                    Storage.delete(f.getPath());
                }
            }
        } catch (NoSuchFileException e) {
            // nothing written yet
        } catch (IOException e) {
            // A leftover costs a few bytes until the run's records are cleared.
        }
    }
}
