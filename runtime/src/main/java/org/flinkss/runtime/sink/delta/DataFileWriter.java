package org.flinkss.runtime.sink.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.checkpoint.QueryIdentity;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DataFiles;

import java.io.IOException;
import java.util.Comparator;
import java.util.UUID;

/**
 * The parallel half of a Delta table sink (Iceberg's pattern): each subtask writes the rows it gets
 * to a Parquet data file in the table's folder, under its final name, which starts with the query's
 * id ({@link #fileNamePrefix}); just before each checkpoint barrier it closes the file, describes
 * it (size, row count, footer statistics) and sends the description downstream to the table's
 * {@link DeltaCommitter}. A checkpoint is never a commit: the file stays unreferenced, invisible to
 * every Delta reader, until the committer commits the micro-batch it belongs to.
 *
 * <p>Files go through Flink's {@code FileSystem}, so a table may live wherever Flink can write. A
 * file written by an attempt that failed before its checkpoint completed is never committed; its
 * name says which query may delete it ({@code Warehouse#deleteUncommitted}).
 */
public final class DataFileWriter extends AbstractStreamOperator<byte[]>
        implements OneInputStreamOperator<RowData, byte[]> {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final String folder;
    private final RowType rowType;
    private final RunScope scope;

    private transient String prefix;
    private transient DataFiles.Writer writer;

    /** The last checkpoint this subtask closed a file for (or restored from): files' sequence. */
    private transient long lastCheckpoint;

    /**
     * @param folder the table's folder, a URI Flink has a file system for
     */
    public DataFileWriter(String table, String folder, RowType rowType, RunScope scope) {
        this.table = table;
        this.folder = folder;
        this.rowType = rowType;
        this.scope = scope;
    }

    /** How the data files that query {@code queryId} writes are named: {@code <id>-...}. */
    public static String fileNamePrefix(String queryId) {
        return queryId + "-";
    }

    /** {@code <query id>-<subtask, 5 digits>-}: how a writer subtask's files start. */
    static String subtaskPrefix(RunScope scope, int subtask) {
        return fileNamePrefix(QueryIdentity.idIn(scope.layout())) + String.format("%05d-", subtask);
    }

    /**
     * The order a batch's data files are committed in: by name, which is {@code <query id>-<writer
     * subtask, 5 digits>-<sequence, 19 digits>-<random>}, so subtask after subtask and, within one,
     * in the order it wrote them (the sequence is the checkpoint that closed the file before it).
     * With readers that keep the planner's order ({@code ReadOrder.CONTIGUOUS}) and writers chained
     * to them, the table's log then lists the batch's rows in the planner's order, at any
     * parallelism, and a reader of the table sees the same batches run after run.
     */
    public static final Comparator<DataFile> COMMIT_ORDER = Comparator.comparing(DataFile::name);

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        // Checkpoint ids only grow, across restores too: a file started after this one is named
        // with a later sequence.
        lastCheckpoint = context.getRestoredCheckpointId().orElse(0);
    }

    @Override
    public void open() throws Exception {
        super.open();
        prefix = subtaskPrefix(scope, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        if (writer == null) {
            String name =
                    prefix
                            + String.format("%019d-", lastCheckpoint + 1)
                            + UUID.randomUUID()
                            + DataFiles.SUFFIX;
            writer = DataFiles.create(new Path(folder, name), rowType);
        }
        writer.write(element.getValue());
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        lastCheckpoint = Math.max(lastCheckpoint, checkpointId);
        if (writer == null) {
            return;
        }
        DataFiles.Writer finishing = writer;
        writer = null;
        output.collect(new StreamRecord<>(finish(table, finishing).toBytes()));
    }

    /** Finishes and closes a table's data file, and describes it; an error names both. */
    static DataFile finish(String table, DataFiles.Writer finishing) throws IOException {
        try {
            return finishing.finish();
        } catch (IOException e) {
            throw new IOException(
                    "table '" + table + "': cannot finish data file " + finishing.path() + ": " + e,
                    e);
        } finally {
            finishing.close();
        }
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
