package org.flinkss.runtime.sink;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Spark's {@code foreachBatch} on Flink's two-phase-commit Sink API: the writer collects the rows
 * of a batch (everything between two checkpoints) and, at the checkpoint, hands them over as one
 * committable, which Flink keeps in the checkpoint; once the checkpoint has completed, the
 * committer calls the {@link BatchFunction} with the rows and the batch id.
 *
 * <p><b>Guarantee.</b> At-least-once, as Spark's: after a failure, a batch whose checkpoint
 * completed but whose call did not finish is handed again, with the same rows and the same batch id
 * (the checkpoint id, which grows across runs and is never reused by a query). Exactly-once needs
 * an idempotent function, such as {@code JdbcUpsert}. Empty batches are handed too.
 *
 * <p><b>Pitfalls.</b> A batch is held in memory until its checkpoint: bound batches with a rate
 * limit ({@code --max-files-per-trigger}). Run the sink with parallelism 1 to get exactly one call
 * (one transaction) per batch; with more, each writer subtask's share is its own call.
 */
public final class ForEachBatchSink<T>
        implements Sink<T>, SupportsCommitter<ForEachBatchSink.Batch> {

    private static final long serialVersionUID = 1L;

    private final TypeSerializer<T> serializer;
    private final BatchFunction<T> function;

    public ForEachBatchSink(TypeSerializer<T> serializer, BatchFunction<T> function) {
        this.serializer = serializer;
        this.function = function;
    }

    /** One writer subtask's rows of one batch, serialized. */
    public static final class Batch {
        final long batchId;
        final int subtask;
        final byte[] rows;
        final int count;

        Batch(long batchId, int subtask, byte[] rows, int count) {
            this.batchId = batchId;
            this.subtask = subtask;
            this.rows = rows;
            this.count = count;
        }
    }

    @Override
    public CommittingSinkWriter<T, Batch> createWriter(WriterInitContext context) {
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        TypeSerializer<T> rowSerializer = serializer.duplicate();
        return new CommittingSinkWriter<>() {
            private DataOutputSerializer buffer = new DataOutputSerializer(4096);
            private int count;
            private long lastCheckpoint = context.getRestoredCheckpointId().orElse(0L);

            @Override
            public void write(T element, Context ctx) throws IOException {
                rowSerializer.serialize(element, buffer);
                count++;
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public Collection<Batch> prepareCommit() {
                // The batch id: one more than the last checkpoint this writer saw. It never runs
                // ahead of Flink's checkpoint ids, which grow across runs, so a query never reuses
                // one; a replay after a failure carries the id stored with the batch.
                Batch batch = new Batch(++lastCheckpoint, subtask, buffer.getCopyOfBuffer(), count);
                buffer = new DataOutputSerializer(4096);
                count = 0;
                return List.of(batch);
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public Committer<Batch> createCommitter(CommitterInitContext context) {
        TypeSerializer<T> rowSerializer = serializer.duplicate();
        return new Committer<>() {
            @Override
            public void commit(Collection<CommitRequest<Batch>> requests)
                    throws IOException, InterruptedException {
                for (CommitRequest<Batch> request : requests) {
                    Batch batch = request.getCommittable();
                    List<T> rows = new ArrayList<>(batch.count);
                    DataInputDeserializer in = new DataInputDeserializer(batch.rows);
                    for (int i = 0; i < batch.count; i++) {
                        rows.add(rowSerializer.deserialize(in));
                    }
                    try {
                        function.apply(rows, batch.batchId, batch.subtask);
                    } catch (InterruptedException e) {
                        throw e;
                    } catch (Exception e) {
                        // Retried: the batch stays in the checkpoint and is handed again.
                        request.retryLater();
                        throw new IOException(
                                "foreachBatch failed on batch "
                                        + batch.batchId
                                        + ": "
                                        + e.getMessage(),
                                e);
                    }
                }
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public SimpleVersionedSerializer<Batch> getCommittableSerializer() {
        return new SimpleVersionedSerializer<>() {
            @Override
            public int getVersion() {
                return 1;
            }

            @Override
            public byte[] serialize(Batch batch) throws IOException {
                DataOutputSerializer out = new DataOutputSerializer(batch.rows.length + 32);
                out.writeLong(batch.batchId);
                out.writeInt(batch.subtask);
                out.writeInt(batch.count);
                out.writeInt(batch.rows.length);
                out.write(batch.rows);
                return out.getCopyOfBuffer();
            }

            @Override
            public Batch deserialize(int version, byte[] serialized) throws IOException {
                DataInputDeserializer in = new DataInputDeserializer(serialized);
                long id = in.readLong();
                int subtask = in.readInt();
                int count = in.readInt();
                byte[] rows = new byte[in.readInt()];
                in.readFully(rows);
                return new Batch(id, subtask, rows, count);
            }
        };
    }
}
