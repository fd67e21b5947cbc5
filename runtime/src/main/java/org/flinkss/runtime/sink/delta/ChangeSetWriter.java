package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * The parallel half of a complete-mode Delta table sink: collects the changes (the last value of
 * each key that changed, deletes included, as {@code ChangesPerBatch} hands them) that reach it
 * between two checkpoint barriers and, just before a barrier, sends them downstream as one change
 * set to the table's {@link DeltaCommitter}, which merges the change sets of a micro-batch into the
 * table's current result and replaces the table with it in one commit.
 */
public final class ChangeSetWriter extends AbstractStreamOperator<byte[]>
        implements OneInputStreamOperator<RowData, byte[]> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;

    private transient RowDataSerializer serializer;
    private transient DataOutputSerializer buffer;
    private transient int count;

    public ChangeSetWriter(RowType rowType) {
        this.rowType = rowType;
    }

    @Override
    public void open() throws Exception {
        super.open();
        serializer = new RowDataSerializer(rowType);
        buffer = new DataOutputSerializer(4096);
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        // The binary row keeps the row's kind: a delete stays a delete.
        serializer.serialize(element.getValue(), buffer);
        count++;
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        if (count == 0) {
            return;
        }
        DataOutputSerializer set = new DataOutputSerializer(buffer.length() + 4);
        set.writeInt(count);
        set.write(buffer.getSharedBuffer(), 0, buffer.length());
        output.collect(new StreamRecord<>(set.getCopyOfBuffer()));
        buffer.clear();
        count = 0;
    }
}
