package org.flinkss.runtime.source.impl;

import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLog;
import org.flinkss.runtime.checkpoint.LogCodec;
import org.flinkss.runtime.source.SourceSpec;
import org.flinkss.runtime.source.SplitPlanner;
import org.flinkss.runtime.source.WorkSplit;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Spark's offset log for one source: the splits of a batch, written before any reader gets one.
 *
 * <p>A batch lives in the enumerator's checkpointed state only from the first checkpoint after it
 * was planned; readers start on it at once. A job that restarts before that checkpoint (a failover,
 * or a killed run run again) restores an enumerator that never planned the batch. Without this log
 * it would plan the batch again from a fresh listing: a planned file that is gone by then would
 * simply not be listed, and the run would go on without it and without a word. With it, batch N
 * reads the same splits however often it is retried, as in Spark: the file is missing every time,
 * and the run fails naming it or, with {@code --skip-missing-files}, skips and records it.
 *
 * <p>Plans live in {@code <checkpoint>/offsets/<source>/<batch id>} and are kept for every batch,
 * as Spark keeps its offset log: a run restored from an older checkpoint, or from none at all (its
 * savepoints deleted), plans the batches it replays exactly as they were planned the first time, so
 * a table that already holds such a batch skips it as a whole (the same rows, the same batch id),
 * and only then plans new ones. A plan costs a few hundred bytes per file or partition (about 100
 * bytes of path plus 20 per split and 8 per plan).
 */
final class BatchPlans<S extends WorkSplit> {

    private static final Logger LOG = LoggerFactory.getLogger(BatchPlans.class);

    private final CheckpointLog<Long, List<S>> log;

    /**
     * @param dir the source's offset log, {@code CheckpointLayout#offsetsLocation}: a local folder
     *     or on an object store
     */
    BatchPlans(Path dir, SimpleVersionedSerializer<S> serializer) {
        this.log =
                new CheckpointLog<>(dir, CheckpointLayout.BATCH_PLANS, new PlanCodec<>(serializer));
    }

    /** The splits batch {@code batchId} was planned with, or null if it never was. */
    @Nullable
    List<S> read(long batchId) throws IOException {
        return log.get(batchId).orElse(null);
    }

    /** Records batch {@code batchId}'s splits (atomically). */
    void write(long batchId, List<S> splits) throws IOException {
        log.add(batchId, splits);
    }

    /**
     * The splits of batch {@code batchId}: as it was planned before the job restarted, if it was,
     * or planned now by {@code planner} within the source's rate limits and recorded before any
     * reader gets one.
     */
    List<S> replayOrPlan(long batchId, SplitPlanner<S> planner, SourceSpec spec) {
        try {
            List<S> splits = read(batchId);
            if (splits != null) {
                LOG.info(
                        "Source '{}' reads batch {} again as it was planned before the job"
                                + " restarted",
                        spec.name(),
                        batchId);
                return splits;
            }
            splits = planner.nextBatch(batchId, spec.readLimit());
            // A real-time run's steps, hundreds a second, are not recorded: a write forced to
            // the disk costs more than a step may take. After a failure the steps since the last
            // checkpoint are planned anew from the checkpoint's position (for Kafka, the same
            // offsets, cut differently); what they wrote is in transactions never committed.
            if (!splits.isEmpty() && !spec.trigger().isRealTime()) {
                write(batchId, splits);
            }
            return splits;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "source '"
                            + spec.name()
                            + "': cannot plan batch "
                            + batchId
                            + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /** Nothing planned and nothing new within the planner's target: an availableNow run is done. */
    boolean nothingToPlan(long batchId, SplitPlanner<S> planner) {
        try {
            return read(batchId) == null && planner.nextBatchIsEmpty();
        } catch (IOException e) {
            return false; // planned, or unknown: the batch is planned once the readers are ready
        }
    }

    /**
     * A plan's bytes: the split serializer's version, the number of splits, then each split's
     * length and bytes as the source's own serializer writes them.
     */
    private static final class PlanCodec<S> implements LogCodec<List<S>> {
        private final SimpleVersionedSerializer<S> serializer;

        PlanCodec(SimpleVersionedSerializer<S> serializer) {
            this.serializer = serializer;
        }

        @Override
        public byte[] encode(List<S> splits) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256 * splits.size() + 8);
            out.writeInt(serializer.getVersion());
            out.writeInt(splits.size());
            for (S split : splits) {
                byte[] bytes = serializer.serialize(split);
                out.writeInt(bytes.length);
                out.write(bytes);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public List<S> decode(byte[] bytes) throws IOException {
            DataInputDeserializer in = new DataInputDeserializer(bytes);
            int version = in.readInt();
            int n = in.readInt();
            List<S> splits = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] split = new byte[in.readInt()];
                in.readFully(split);
                splits.add(serializer.deserialize(version, split));
            }
            return splits;
        }
    }
}
