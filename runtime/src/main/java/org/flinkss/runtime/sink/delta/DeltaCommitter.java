package org.flinkss.runtime.sink.delta;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.flinkss.runtime.TestPauses;
import org.flinkss.runtime.checkpoint.CheckpointLog;
import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.checkpoint.SealedBatch;
import org.flinkss.runtime.checkpoint.SkippedCommit;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.Completeness;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.time.Watermarks;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one committer of a Delta table (parallelism 1): one Delta commit per micro-batch, never one
 * per periodic checkpoint inside a batch. What the table's writers send ({@link DataFileWriter}'s
 * data files, {@link ChangeSetWriter}'s change sets) is staged in this operator's checkpointed
 * state; in its snapshot of each checkpoint it reads the query's source's {@link SealedBatch}
 * record of the same checkpoint (written before the checkpoint's barriers left the source) and,
 * when a new batch is sealed, closes it: everything staged up to this barrier is that batch. Once
 * the checkpoint has completed (or, after a restore, at once, since a restored checkpoint has
 * completed), the batch is committed as one table version carrying a {@code txn} action (the
 * query's id, the batch id), as Spark's Delta sink does. Periodic checkpoints inside a batch only
 * stage.
 *
 * <p>A batch the table already holds for the query (a replay after a restore from an older
 * checkpoint, or from no checkpoint at all, reads the same batches again: the offset log keeps
 * their plans) is skipped whole and reported ({@link SkippedCommit}); its files are never
 * referenced. A batch restored from the checkpoint that closed it is committed again, which is a
 * no-op when its commit had happened.
 *
 * <p>Each commit records the batch's {@link Completeness} in its commit info: the watermark that
 * reached this operator before the barrier that closed the batch (the batch's watermark: the source
 * emits it after the batch's records and before that barrier) and, for a table of windows, that
 * windows ending at or before it are final.
 *
 * <p>In a real-time run ({@code --trigger real-time}) the source seals short steps without waiting
 * for checkpoints, so a checkpoint finds the steps sealed since the last one and closes what was
 * staged before its barrier as one batch, named after the last step: one commit per checkpoint that
 * follows a sealed step. Rows of the next step that reached the writers before the barrier are in
 * it too: the source's readers checkpoint their positions at the same barrier, so a restore from
 * that checkpoint reads on after those rows, and each row is committed once.
 */
public final class DeltaCommitter extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<byte[], Void> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(DeltaCommitter.class);

    /** 2 adds each closed batch's watermark; 1 is still read (its batches record none). */
    private static final int STATE_VERSION = 2;

    /** A closed batch's watermark in the state when none had reached the committer. */
    private static final long NO_WATERMARK = Long.MIN_VALUE;

    private final String table;
    private final String folder;
    private final String source;
    private final RunScope scope;
    private final TableCommit commit;

    /** The column whose end makes a row final ({@code window_end}), or null: no final bound. */
    @Nullable private final String finalColumn;

    private transient ListState<byte[]> state;
    private transient DeltaTable delta;
    private transient String queryId;
    private transient long heldBatch;

    /** The last batch whose items were closed, -1 before the first. */
    private transient long lastClosed;

    /** Items of the batch in progress. */
    private transient List<byte[]> open;

    /** Closed batches not committed yet: batch id -> the checkpoint that closed it, its items. */
    private transient TreeMap<Long, Closed> closed;

    /** Flink's watermark as it last reached this operator, {@link Long#MIN_VALUE} before any. */
    private transient long flinkWatermark;

    /**
     * @param restored closed before this run's job started: its commit may have happened, and
     *     finding it done is no news
     * @param watermark Spark's watermark of the batch, {@link #NO_WATERMARK} if none
     */
    private record Closed(
            long checkpointId, List<byte[]> items, boolean restored, long watermark) {}

    /**
     * @param folder the table's folder (URI)
     * @param source the query's one micro-batch source, whose batches this table's commits follow
     */
    public DeltaCommitter(
            String table, String folder, String source, RunScope scope, TableCommit commit) {
        this(table, folder, source, scope, commit, null);
    }

    /**
     * @param finalColumn for a table of windows whose late rows are dropped (append and update
     *     mode), the column of a window's end, which each commit records final up to the batch's
     *     watermark; null for any other table
     */
    public DeltaCommitter(
            String table,
            String folder,
            String source,
            RunScope scope,
            TableCommit commit,
            @Nullable String finalColumn) {
        this.table = table;
        this.folder = folder;
        this.source = source;
        this.scope = scope;
        this.commit = commit;
        this.finalColumn = finalColumn;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        state =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "delta-committer-" + table,
                                        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        lastClosed = -1;
        flinkWatermark = Long.MIN_VALUE;
        open = new ArrayList<>();
        closed = new TreeMap<>();
        for (byte[] blob : state.get()) {
            restore(blob);
        }
        delta = DeltaTable.forPath(folder);
        queryId = QueryIdentity.idIn(scope.layout());
        heldBatch = delta.committedBatch(queryId).orElse(-1);
        // Batches closed by the restored checkpoint: it completed, so they are committed now (or
        // found already committed).
        commitClosedUpTo(Long.MAX_VALUE);
    }

    @Override
    public void processElement(StreamRecord<byte[]> element) {
        open.add(element.getValue());
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        super.processWatermark(mark);
        flinkWatermark = mark.getTimestamp();
    }

    /**
     * Spark's watermark that Flink's last one stands for; none before the first, nor for the end of
     * input (a bounded job's last watermark says nothing of event time).
     */
    private long sparkWatermark() {
        return flinkWatermark == Long.MIN_VALUE || flinkWatermark == Long.MAX_VALUE
                ? NO_WATERMARK
                : Watermarks.fromFlink(flinkWatermark);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        long checkpointId = context.getCheckpointId();
        CheckpointLog<Long, SealedBatch> log = scope.sealedBatches(source);
        SealedBatch sealed =
                log.get(checkpointId)
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                "table '"
                                                        + table
                                                        + "': source '"
                                                        + source
                                                        + "' left no record of the batches it had"
                                                        + " sealed at checkpoint "
                                                        + checkpointId
                                                        + " ("
                                                        + log.location(checkpointId)
                                                        + "): the checkpoint cannot close a"
                                                        + " batch"));
        if (sealed.lastSealed() > lastClosed) {
            // Every record of the batch reached the writers before this barrier, and no record of
            // a later batch did: what was staged so far is the batch, whole.
            closed.put(
                    sealed.lastSealed(), new Closed(checkpointId, open, false, sparkWatermark()));
            open = new ArrayList<>();
            lastClosed = sealed.lastSealed();
        }
        state.update(List.of(snapshot()));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        commitClosedUpTo(checkpointId);
    }

    private void commitClosedUpTo(long checkpointId) throws IOException {
        Iterator<Map.Entry<Long, Closed>> it = closed.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, Closed> batch = it.next();
            if (batch.getValue().checkpointId() > checkpointId) {
                break;
            }
            long batchId = batch.getKey();
            Closed c = batch.getValue();
            if (batchId <= heldBatch) {
                skipped(batchId, c, heldBatch);
            } else {
                // Staged and in a completed checkpoint, not yet in the table: a process killed
                // here leaves the batch to the restore from that checkpoint.
                TestPauses.at("delta-before-commit:" + table);
                delta.recordInCommits(
                        Completeness.of(
                                c.watermark() == NO_WATERMARK ? null : c.watermark(), finalColumn));
                CommitResult result = commit.commit(delta, queryId, batchId, c.items());
                if (result.committed()) {
                    LOG.info("Table '{}': {}", table, result.describe());
                    TestPauses.at("delta-commit:" + table + ":" + batchId);
                } else {
                    skipped(batchId, c, result.committedBatch());
                }
                heldBatch = Math.max(heldBatch, batchId);
            }
            it.remove();
        }
    }

    /**
     * A batch the table holds already. Restored from the checkpoint that closed it, it is the same
     * commit again (its notification may or may not have run before the job stopped): nothing to
     * say. Closed in this run, it is a replay (a restore from an older checkpoint, or from none):
     * reported. Its files, never committed, are deleted when the run is over ({@code
     * Warehouse#deleteUncommitted}), not here: a restored batch's files are the committed ones.
     */
    private void skipped(long batchId, Closed batch, long held) throws IOException {
        if (batch.restored()) {
            LOG.info(
                    "Table '{}': batch {} of query {} was committed already",
                    table,
                    batchId,
                    queryId);
            return;
        }
        LOG.warn(
                "Table '{}': batch {} of query {} already committed (the table holds its batches up"
                        + " to {}): skipped",
                table,
                batchId,
                queryId,
                held);
        SkippedCommit skipped = new SkippedCommit(table, batchId, held);
        scope.skippedCommits().add(skipped.key(), skipped);
    }

    private byte[] snapshot() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        out.writeInt(STATE_VERSION);
        out.writeLong(lastClosed);
        writeItems(out, open);
        out.writeInt(closed.size());
        for (Map.Entry<Long, Closed> batch : closed.entrySet()) {
            out.writeLong(batch.getKey());
            out.writeLong(batch.getValue().checkpointId());
            writeItems(out, batch.getValue().items());
            out.writeLong(batch.getValue().watermark());
        }
        return out.getCopyOfBuffer();
    }

    private void restore(byte[] blob) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(blob);
        int version = in.readInt();
        if (version != 1 && version != STATE_VERSION) {
            throw new IOException(
                    "table '" + table + "': committer state of version " + version + " unknown");
        }
        lastClosed = Math.max(lastClosed, in.readLong());
        open.addAll(restoredItems(in));
        for (int n = in.readInt(); n > 0; n--) {
            long batchId = in.readLong();
            long checkpointId = in.readLong();
            List<byte[]> items = restoredItems(in);
            long watermark = version >= 2 ? in.readLong() : NO_WATERMARK;
            closed.put(batchId, new Closed(checkpointId, items, true, watermark));
        }
    }

    /**
     * Staged items as this run's table folder names them: a checkpoint taken before the base was
     * moved or copied names the files where they were staged.
     */
    private List<byte[]> restoredItems(DataInputDeserializer in) throws IOException {
        List<byte[]> items = readItems(in);
        items.replaceAll(item -> commit.restored(item, folder));
        return items;
    }

    private static void writeItems(DataOutputSerializer out, List<byte[]> items)
            throws IOException {
        out.writeInt(items.size());
        for (byte[] item : items) {
            out.writeInt(item.length);
            out.write(item);
        }
    }

    private static List<byte[]> readItems(DataInputDeserializer in) throws IOException {
        int n = in.readInt();
        List<byte[]> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] item = new byte[in.readInt()];
            in.readFully(item);
            items.add(item);
        }
        return items;
    }
}
