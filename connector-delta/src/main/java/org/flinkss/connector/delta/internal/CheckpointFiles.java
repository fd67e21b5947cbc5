package org.flinkss.connector.delta.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one task (parallelism 1) between the writers and the committer: it gathers the data files
 * every writer subtask finished and, just before its own barrier of checkpoint {@code n}, emits
 * them as one {@link DeltaCommittable} of version {@code n}, which Flink's committer commits once
 * checkpoint {@code n} has completed.
 *
 * <p>The committable takes the id of the checkpoint at which it is emitted, not the writers': ids
 * so taken only grow, whatever reaches this task late (files in flight in an unaligned checkpoint,
 * restored after a failure), and a Delta {@code txn} must grow for its commit not to be skipped as
 * a replay. It keeps no state: what it has gathered at a barrier is emitted before the barrier, so
 * the committer's state holds it.
 */
@Internal
public final class CheckpointFiles
        extends AbstractStreamOperator<CommittableMessage<DeltaCommittable>>
        implements OneInputStreamOperator<
                CommittableMessage<DataFile>, CommittableMessage<DeltaCommittable>> {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final RowType rowType;
    private final Map<String, String> properties;

    private transient List<DataFile> gathered;
    private transient long newestWriterCheckpoint;
    private transient long lastEmitted;
    private transient String appId;

    public CheckpointFiles(String path, RowType rowType, Map<String, String> properties) {
        this.path = path;
        this.rowType = rowType;
        this.properties = properties;
    }

    /** The {@code txn} application id of a job's commits, and the prefix of its files' names. */
    public static String appId(String jobId) {
        return "flink-" + jobId;
    }

    @Override
    public void open() throws Exception {
        super.open();
        gathered = new ArrayList<>();
        appId = appId(getRuntimeContext().getJobInfo().getJobId().toString());
        // Here, in the one task, so that no two subtasks race to create the table; a table that
        // exists with other columns fails the job now, not at its first commit.
        DeltaTable.forPath(path).create(rowType, properties);
    }

    @Override
    public void processElement(StreamRecord<CommittableMessage<DataFile>> element) {
        if (element.getValue() instanceof CommittableWithLineage<DataFile> file) {
            gathered.add(file.getCommittable());
            newestWriterCheckpoint = Math.max(newestWriterCheckpoint, file.getCheckpointId());
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        emit(checkpointId);
    }

    /**
     * The writers' last files, sent when their input ended, carry the id of the checkpoint that
     * will follow (Flink's end-of-input rule): they are emitted under it, or past the last id
     * emitted if that is not more, so that the txn still grows. Flink's committer commits them at
     * the final checkpoint, or at the end of input when checkpointing is off.
     */
    @Override
    public void finish() throws Exception {
        emit(Math.max(newestWriterCheckpoint, lastEmitted + 1));
        super.finish();
    }

    private void emit(long checkpointId) {
        if (gathered.isEmpty()) {
            return;
        }
        output.collect(new StreamRecord<>(new CommittableSummary<>(0, 1, checkpointId, 1, 0)));
        output.collect(
                new StreamRecord<>(
                        new CommittableWithLineage<>(
                                new DeltaCommittable(appId, checkpointId, gathered),
                                checkpointId,
                                0)));
        gathered = new ArrayList<>();
        lastEmitted = checkpointId;
    }
}
