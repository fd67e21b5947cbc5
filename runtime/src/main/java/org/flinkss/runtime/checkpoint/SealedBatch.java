package org.flinkss.runtime.checkpoint;

/**
 * Which micro-batches a source had sealed when it took part in one checkpoint: every batch up to
 * {@code lastSealed} had all its records and its watermark emitted before that checkpoint's
 * barrier, and no later batch had started (a batch starts only after a checkpoint holding the
 * previous one completed). A source's split enumerator writes one for every checkpoint, before the
 * checkpoint's barriers leave the readers; a table committer reads it in its own snapshot of the
 * same checkpoint and so knows that the files it staged up to that barrier close batch {@code
 * lastSealed}.
 *
 * <p>Kept in the {@link #log} {@code runs/<run>/sealed-<source>/}, one small JSON file per
 * checkpoint ({@code 000000000007.json}); a source forgets those older than a completed checkpoint.
 *
 * @param lastSealed the newest sealed batch id, -1 if none yet
 */
public record SealedBatch(String source, long checkpointId, long lastSealed) {

    /** The records source {@code source} leaves in run {@code runId}, by checkpoint id. */
    public static CheckpointLog<Long, SealedBatch> log(
            CheckpointLayout layout, String runId, String source) {
        return new CheckpointLog<>(
                layout.sealedBatches(runId, source),
                CheckpointLayout.SEALED_BATCHES,
                LogCodec.json(SealedBatch.class));
    }
}
