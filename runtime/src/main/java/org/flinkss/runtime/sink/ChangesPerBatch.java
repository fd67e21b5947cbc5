package org.flinkss.runtime.sink;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A changelog (rows upserted or deleted by key) made into what Spark's update mode writes: at the
 * end of each batch, the last change of every key that changed in it, once. A batch ends with its
 * watermark (when it moves) and is committed by the next checkpoint, so the changes are written
 * when the watermark arrives, and in any case just before a checkpoint barrier: nothing is held in
 * state when a checkpoint is taken, and every change belongs to the commit of its batch. A periodic
 * checkpoint that falls inside a long batch splits it: a key changed on both sides of it is then
 * written twice, with the same final value.
 *
 * <p>Rows keep their {@link org.apache.flink.types.RowKind}: a {@code DELETE} stays a delete (a
 * session merged into another), anything else is an upsert. Stands right after the keyed operator
 * that makes the changes, with its parallelism, so a key's changes meet in one place.
 */
public final class ChangesPerBatch extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final int[] keyFields;

    private transient RowData.FieldGetter[] keyGetters;
    private transient Map<List<Object>, RowData> changed;

    public ChangesPerBatch(RowType rowType, int[] keyFields) {
        this.rowType = rowType;
        this.keyFields = keyFields.clone();
    }

    /** The stream's last change per key and batch. */
    public static DataStream<RowData> of(
            DataStream<RowData> changes, RowType rowType, List<String> keyColumns, String uid) {
        int[] keys =
                keyColumns.stream()
                        .mapToInt(
                                c -> {
                                    int i = rowType.getFieldIndex(c);
                                    if (i < 0) {
                                        throw new IllegalArgumentException(
                                                "no key column '" + c + "' in " + rowType);
                                    }
                                    return i;
                                })
                        .toArray();
        return changes.transform(
                        "changes-per-batch",
                        InternalTypeInfo.of(rowType),
                        new ChangesPerBatch(rowType, keys))
                .uid(uid)
                .setParallelism(changes.getParallelism());
    }

    @Override
    public void open() throws Exception {
        super.open();
        keyGetters =
                Arrays.stream(keyFields)
                        .mapToObj(i -> RowData.createFieldGetter(rowType.getTypeAt(i), i))
                        .toArray(RowData.FieldGetter[]::new);
        changed = new LinkedHashMap<>();
    }

    @Override
    public void processElement(StreamRecord<RowData> element) {
        RowData row = element.getValue();
        List<Object> key = new ArrayList<>(keyGetters.length);
        for (RowData.FieldGetter getter : keyGetters) {
            key.add(getter.getFieldOrNull(row));
        }
        // A re-inserted key moves to the end: the batch's changes come out in the order of their
        // last change.
        changed.remove(key);
        changed.put(key, row);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        flush();
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        super.processWatermark(mark);
    }

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }

    private void flush() {
        StreamRecord<RowData> record = new StreamRecord<>(null);
        for (RowData row : changed.values()) {
            output.collect(record.replace(row));
        }
        changed.clear();
    }
}
