package org.flinkss.runtime.progress;

import org.apache.flink.core.fs.Path;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLog;
import org.flinkss.runtime.checkpoint.LogCodec;
import org.flinkss.runtime.checkpoint.LogFolder;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The logs of the {@link Fragment}s a run's operators leave: {@code progress/pending/<run>/} holds
 * a folder per checkpoint ({@code 000000000007/}, {@link #checkpoints}), and each of those a log
 * with one JSON file per operator subtask ({@code sink-events_bronze-0.json}, {@link #log}). The
 * driver merges a checkpoint's folder once the checkpoint has completed, then removes it.
 */
public final class Fragments {

    private static final LogCodec<Fragment> CODEC = LogCodec.json(Fragment.class);

    private Fragments() {}

    /** The runs whose fragments are not merged yet, by run id. */
    static LogFolder<String> runs(CheckpointLayout layout) {
        return new LogFolder<>(layout.pendingProgress(), CheckpointLayout.FRAGMENT_RUNS);
    }

    /** The checkpoints of run {@code runId} that left fragments, by checkpoint id. */
    static LogFolder<Long> checkpoints(CheckpointLayout layout, String runId) {
        return new LogFolder<>(
                layout.pendingProgress(runId), CheckpointLayout.FRAGMENT_CHECKPOINTS);
    }

    /** The fragments of checkpoint {@code checkpointId} of run {@code runId}, by file name. */
    static CheckpointLog<String, Fragment> log(
            CheckpointLayout layout, String runId, long checkpointId) {
        return log(layout.fragments(runId, checkpointId));
    }

    private static CheckpointLog<String, Fragment> log(Path checkpointFolder) {
        return new CheckpointLog<>(checkpointFolder, CheckpointLayout.FRAGMENTS, CODEC);
    }

    /**
     * The last checkpoint of run {@code runId} whose fragments were merged, -1 if none: its folder
     * and older ones, if some are left, are what a driver killed while it removed them left.
     */
    static long mergedUpTo(CheckpointLayout layout, String runId) {
        Path mark = layout.mergedFragments(runId);
        try {
            return Storage.exists(mark) ? Long.parseLong(Storage.readText(mark).trim()) : -1;
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException(
                    "cannot read "
                            + mark
                            + " (the last checkpoint whose progress was merged): "
                            + e.getMessage()
                            + "; if it is damaged, delete it and run the query again",
                    e);
        }
    }

    /**
     * Records that the fragments of checkpoint {@code checkpointId} of run {@code runId} are
     * merged, before its folder is removed: a removal cut short by a kill leaves some of its files
     * (the sinks' counts without the source's batches), which must not be merged again.
     */
    static void markMerged(CheckpointLayout layout, String runId, long checkpointId) {
        Path mark = layout.mergedFragments(runId);
        try {
            Storage.replaceText(mark, Long.toString(checkpointId));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + mark + ": " + e.getMessage(), e);
        }
    }

    /** Leaves {@code fragment} for checkpoint {@code checkpointId} of the run (atomically). */
    public static void write(RunScope scope, long checkpointId, Fragment fragment) {
        CheckpointLog<String, Fragment> log = scope.fragmentLog(checkpointId);
        String name = fragment.fileName();
        String key = name.substring(0, name.length() - ".json".length());
        try {
            log.add(key, fragment);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write " + log.location(key) + ": " + e.getMessage(), e);
        }
    }

    /** Every fragment left in one checkpoint's folder anywhere, in file-name order. */
    public static List<Fragment> read(Path checkpointFolder) {
        try {
            return log(checkpointFolder).all();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read progress fragments in " + checkpointFolder + ": " + e.getMessage(),
                    e);
        }
    }
}
