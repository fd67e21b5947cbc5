package org.flinkss.runtime.source.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.source.WorkSplit;

import java.io.IOException;

/**
 * What a reader keeps in its checkpointed state: a split still to read, or its running totals of
 * the current batch. The totals must survive a restore, because the batch's watermark is computed
 * from them once every reader is done.
 */
@Internal
public final class MicroBatchSplit<S extends WorkSplit> implements SourceSplit {

    final S work;
    final BatchStats stats;

    private MicroBatchSplit(S work, BatchStats stats) {
        this.work = work;
        this.stats = stats;
    }

    static <S extends WorkSplit> MicroBatchSplit<S> of(S work) {
        return new MicroBatchSplit<>(work, null);
    }

    static <S extends WorkSplit> MicroBatchSplit<S> ofStats(BatchStats stats) {
        return new MicroBatchSplit<>(null, stats);
    }

    @Override
    public String splitId() {
        return work != null ? work.splitId() : "stats-of-batch-" + stats.batchId;
    }

    /** Serializes both kinds, delegating work splits to the planner's serializer. */
    static final class Serializer<S extends WorkSplit>
            implements SimpleVersionedSerializer<MicroBatchSplit<S>> {
        private final SimpleVersionedSerializer<S> workSerializer;

        Serializer(SimpleVersionedSerializer<S> workSerializer) {
            this.workSerializer = workSerializer;
        }

        /**
         * 3: the totals keep the newest event time per watermark node; 2: they list the files
         * skipped ({@code --skip-missing-files}); 1 and 2 are still read.
         */
        @Override
        public int getVersion() {
            return 3;
        }

        @Override
        public byte[] serialize(MicroBatchSplit<S> split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(128);
            if (split.work != null) {
                out.writeByte(0);
                out.writeInt(workSerializer.getVersion());
                byte[] bytes = workSerializer.serialize(split.work);
                out.writeInt(bytes.length);
                out.write(bytes);
            } else {
                out.writeByte(1);
                split.stats.write(out);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public MicroBatchSplit<S> deserialize(int version, byte[] serialized) throws IOException {
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            if (in.readByte() == 0) {
                int workVersion = in.readInt();
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                return of(workSerializer.deserialize(workVersion, bytes));
            }
            return ofStats(BatchStats.read(in, version));
        }
    }
}
