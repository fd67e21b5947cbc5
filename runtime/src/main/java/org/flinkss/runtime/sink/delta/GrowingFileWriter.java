package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.function.SerializableFunction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.table.OpenColumns;
import org.flinkss.runtime.table.TableDef;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * {@link DataFileWriter} for a table whose columns grow with its data ({@code QueryContext
 * #toGrowingTable}): each record gives its fixed columns ({@link TableDef}) and a JSON object of
 * further ones ({@link OpenColumns}). A data file holds the table's columns as the job started and
 * the further columns its rows brought, typed by {@link OpenColumns#inferType}; when a row brings a
 * column the open file lacks, the file is finished and the next one has it too (a Parquet file's
 * columns are fixed when it starts). Each staged item names the file's columns beyond the table's
 * ({@link GrownFile}); {@link GrowingAppendCommit} adds them to the table in the batch's commit.
 *
 * <p>A value that does not fit its column's type is refused: the source's parser checks values
 * against the columns it knows, so reaching this is a value no parser checked.
 */
public final class GrowingFileWriter<T> extends AbstractStreamOperator<byte[]>
        implements OneInputStreamOperator<T, byte[]> {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final String folder;
    private final RowType columns;
    private final TableDef<T> fixed;
    private final SerializableFunction<T, String> open;
    private final RunScope scope;

    private transient String prefix;
    private transient RowData.FieldGetter[] getters;
    private transient Map<String, Integer> fixedAt;
    private transient long lastCheckpoint;
    private transient int part;

    /** The open file, its columns, and those beyond {@link #columns}. */
    private transient DataFiles.Writer writer;

    private transient List<RowType.RowField> fileColumns;
    private transient List<RowType.RowField> added;

    /**
     * @param columns the table's columns as the job starts: {@code fixed}'s, and those the table
     *     gained before, whose values come from the open columns
     * @param open a record's open columns, a JSON object (null: none)
     */
    public GrowingFileWriter(
            String table,
            String folder,
            RowType columns,
            TableDef<T> fixed,
            SerializableFunction<T, String> open,
            RunScope scope) {
        this.table = table;
        this.folder = folder;
        this.columns = columns;
        this.fixed = fixed;
        this.open = open;
        this.scope = scope;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        // As DataFileWriter: checkpoint ids only grow, so later files sort after earlier ones.
        lastCheckpoint = context.getRestoredCheckpointId().orElse(0);
    }

    @Override
    public void open() throws Exception {
        super.open();
        prefix =
                DataFileWriter.subtaskPrefix(
                        scope, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
        RowType fixedType = fixed.rowType();
        getters = new RowData.FieldGetter[fixedType.getFieldCount()];
        fixedAt = new HashMap<>();
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(fixedType.getTypeAt(i), i);
            fixedAt.put(fixedType.getFieldNames().get(i), i);
        }
        fileColumns = new ArrayList<>(columns.getFields());
        added = new ArrayList<>();
    }

    @Override
    public void processElement(StreamRecord<T> element) throws Exception {
        T record = element.getValue();
        RowData row = fixed.toRow(record);
        ObjectNode values = OpenColumns.parse(open.apply(record));
        for (Iterator<Map.Entry<String, JsonNode>> it = values.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            // Delta's column names are case-insensitive: "Channel" is no second "channel".
            if (!fixedAt.containsKey(field.getKey()) && indexOf(field.getKey()) < 0) {
                LogicalType type = OpenColumns.inferType(field.getValue());
                if (type != null) {
                    // A Parquet file's columns are fixed: the next file has the new one too.
                    finishFile();
                    RowType.RowField column = new RowType.RowField(field.getKey(), type);
                    fileColumns.add(column);
                    added.add(column);
                }
            }
        }
        if (writer == null) {
            String name =
                    prefix
                            // The part keeps a subtask's files of one batch in the order written.
                            + String.format("%019d-%05d-", lastCheckpoint + 1, part++)
                            + UUID.randomUUID()
                            + DataFiles.SUFFIX;
            writer = DataFiles.create(new Path(folder, name), new RowType(fileColumns));
        }
        writer.write(fileRow(row, values));
    }

    private RowData fileRow(RowData row, ObjectNode values) {
        GenericRowData out = new GenericRowData(fileColumns.size());
        for (int i = 0; i < fileColumns.size(); i++) {
            RowType.RowField column = fileColumns.get(i);
            Integer at = fixedAt.get(column.getName());
            if (at != null) {
                out.setField(i, getters[at].getFieldOrNull(row));
                continue;
            }
            JsonNode value = values.get(column.getName());
            if (value != null && !OpenColumns.fits(value, column.getType())) {
                throw new PermanentFailure(
                        "table '"
                                + table
                                + "': column '"
                                + column.getName()
                                + "' is "
                                + OpenColumns.name(column.getType())
                                + " but a row brings "
                                + OpenColumns.text(value)
                                + ", a "
                                + OpenColumns.name(OpenColumns.inferType(value))
                                + ": a column's type does not change in place");
            }
            out.setField(i, OpenColumns.internal(value, column.getType()));
        }
        return out;
    }

    private int indexOf(String name) {
        for (int i = 0; i < fileColumns.size(); i++) {
            if (fileColumns.get(i).getName().equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        lastCheckpoint = Math.max(lastCheckpoint, checkpointId);
        finishFile();
    }

    private void finishFile() throws IOException {
        if (writer == null) {
            return;
        }
        DataFiles.Writer finishing = writer;
        writer = null;
        DataFile staged = DataFileWriter.finish(table, finishing);
        output.collect(new StreamRecord<>(new GrownFile(staged, List.copyOf(added)).toBytes()));
    }

    @Override
    public void close() throws Exception {
        // A file still open belongs to no checkpoint: it is never committed.
        if (writer != null) {
            writer.close();
        }
        super.close();
    }
}
