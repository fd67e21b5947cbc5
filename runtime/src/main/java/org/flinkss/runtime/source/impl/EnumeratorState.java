package org.flinkss.runtime.source.impl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.flinkss.runtime.progress.BatchSummary;
import org.flinkss.runtime.source.WorkSplit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The split enumerator's checkpointed state: Spark's offset and commit logs for one source. It
 * holds the committed position, the watermark in force (carried across runs, since Flink keeps no
 * watermark in checkpoints), the next batch id, and the batch in flight, if any.
 */
@Internal
public final class EnumeratorState<S extends WorkSplit> {

    long nextBatchId;
    long watermark = Long.MIN_VALUE;
    byte[] plannerCommitted;

    /** The batch being read, or read and waiting for every reader to emit its watermark. */
    InFlight<S> inFlight;

    static final class InFlight<S> {
        long batchId;
        List<S> splits = new ArrayList<>();
        List<S> unassigned = new ArrayList<>();

        /**
         * Set once every reader is done: the watermark is then fixed and must not be recomputed.
         */
        BatchSummary readDone;

        long startedAtMillis;
    }

    /** A copy for a checkpoint, which the enumerator goes on changing after the snapshot. */
    EnumeratorState<S> copy() {
        EnumeratorState<S> copy = new EnumeratorState<>();
        copy.nextBatchId = nextBatchId;
        copy.watermark = watermark;
        copy.plannerCommitted = plannerCommitted;
        if (inFlight != null) {
            InFlight<S> b = new InFlight<>();
            b.batchId = inFlight.batchId;
            b.splits = new ArrayList<>(inFlight.splits);
            b.unassigned = new ArrayList<>(inFlight.unassigned);
            b.readDone = inFlight.readDone;
            b.startedAtMillis = inFlight.startedAtMillis;
            copy.inFlight = b;
        }
        return copy;
    }

    /** The last batch sealed: the one before a batch in flight. */
    long lastSealed() {
        return inFlight != null ? inFlight.batchId - 1 : nextBatchId - 1;
    }

    public long nextBatchId() {
        return nextBatchId;
    }

    public long watermark() {
        return watermark;
    }

    static final class Serializer<S extends WorkSplit>
            implements SimpleVersionedSerializer<EnumeratorState<S>> {
        private static final ObjectMapper JSON = new ObjectMapper();
        private final SimpleVersionedSerializer<S> splits;

        Serializer(SimpleVersionedSerializer<S> splits) {
            this.splits = splits;
        }

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(EnumeratorState<S> state) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(1024);
            out.writeLong(state.nextBatchId);
            out.writeLong(state.watermark);
            writeBytes(out, state.plannerCommitted);
            out.writeBoolean(state.inFlight != null);
            if (state.inFlight != null) {
                InFlight<S> b = state.inFlight;
                out.writeLong(b.batchId);
                out.writeLong(b.startedAtMillis);
                writeSplits(out, b.splits);
                writeSplits(out, b.unassigned);
                out.writeBoolean(b.readDone != null);
                if (b.readDone != null) {
                    writeBytes(out, JSON.writeValueAsBytes(b.readDone));
                }
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public EnumeratorState<S> deserialize(int version, byte[] serialized) throws IOException {
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            EnumeratorState<S> state = new EnumeratorState<>();
            state.nextBatchId = in.readLong();
            state.watermark = in.readLong();
            state.plannerCommitted = readBytes(in);
            if (in.readBoolean()) {
                InFlight<S> b = new InFlight<>();
                b.batchId = in.readLong();
                b.startedAtMillis = in.readLong();
                b.splits = readSplits(in);
                b.unassigned = readSplits(in);
                if (in.readBoolean()) {
                    b.readDone = JSON.readValue(readBytes(in), BatchSummary.class);
                }
                state.inFlight = b;
            }
            return state;
        }

        private void writeSplits(DataOutputView out, List<S> list) throws IOException {
            out.writeInt(list.size());
            out.writeInt(splits.getVersion());
            for (S s : list) {
                writeBytes(out, splits.serialize(s));
            }
        }

        private List<S> readSplits(DataInputView in) throws IOException {
            int n = in.readInt();
            int version = in.readInt();
            List<S> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(splits.deserialize(version, readBytes(in)));
            }
            return list;
        }

        private static void writeBytes(DataOutputView out, byte[] bytes) throws IOException {
            if (bytes == null) {
                out.writeInt(-1);
                return;
            }
            out.writeInt(bytes.length);
            out.write(bytes);
        }

        private static byte[] readBytes(DataInputView in) throws IOException {
            int n = in.readInt();
            if (n < 0) {
                return null;
            }
            byte[] bytes = new byte[n];
            in.readFully(bytes);
            return bytes;
        }
    }
}
