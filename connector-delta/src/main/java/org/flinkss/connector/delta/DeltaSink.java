package org.flinkss.connector.delta;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.flinkss.connector.delta.internal.CheckpointCommitter;
import org.flinkss.connector.delta.internal.CheckpointFiles;
import org.flinkss.connector.delta.internal.DataFileSerializer;
import org.flinkss.connector.delta.internal.DeltaCommittable;
import org.flinkss.connector.delta.internal.DeltaCommittableSerializer;
import org.flinkss.connector.delta.internal.ParquetSinkWriter;
import org.flinkss.runtime.table.delta.DataFile;

import java.io.IOException;
import java.util.Map;

/**
 * A Flink Sink V2 that appends the rows of any DataStream job to a Delta Lake table, exactly once:
 * one Delta commit per Flink checkpoint.
 *
 * <pre>{@code
 * RowType rowType = RowType.of(new LogicalType[] {new BigIntType(), new VarCharType(100)},
 *         new String[] {"id", "name"});
 * env.enableCheckpointing(10_000);
 * rows.sinkTo(DeltaSink.forRowData("s3://bucket/tables/people", rowType).build());
 * }</pre>
 *
 * <p><b>Delivery guarantee: exactly once, with checkpointing on.</b> Each writer subtask writes the
 * rows it gets to a Parquet data file in the table's folder and closes it just before each
 * checkpoint barrier; one task (parallelism 1) gathers the files of every subtask for that
 * checkpoint, and once the checkpoint has completed Flink's committer makes them one Delta commit
 * carrying a {@code txn} action ({@code appId} = {@code flink-<job id>}, {@code version} = the
 * checkpoint id). After a failure the job restores its last checkpoint and Flink commits that
 * checkpoint's files again: the table already holds that txn version, so the commit is skipped and
 * no row is written twice. Without checkpointing, files are committed only when a bounded input
 * ends.
 *
 * <p><b>Pitfalls.</b> Rows become visible at checkpoints only: the checkpoint interval is the
 * table's latency and sets how many small files it gets. A data file written by an attempt that
 * failed before its checkpoint completed stays in the folder, referenced by no version: Delta's
 * {@code VACUUM} deletes it. The table is created with the builder's columns when it does not
 * exist; an existing table must have those columns, or the job fails when it starts. Appends only:
 * {@link org.apache.flink.types.RowKind} is not read, so an updating stream must be turned into
 * inserts first.
 */
public final class DeltaSink
        implements Sink<RowData>,
                SupportsCommitter<DeltaCommittable>,
                SupportsPreCommitTopology<DataFile, DeltaCommittable> {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final RowType rowType;
    private final RowType tableType;
    private final Map<String, String> properties;

    /**
     * @param tableType {@code rowType} as the Delta log keeps it: the table's columns
     */
    DeltaSink(String path, RowType rowType, RowType tableType, Map<String, String> properties) {
        this.path = path;
        this.rowType = rowType;
        this.tableType = tableType;
        this.properties = properties;
    }

    /**
     * A builder of a sink of {@link RowData} rows of {@code rowType} into the Delta table at {@code
     * path} (a folder or a URI of any file system Flink has: {@code file:}, {@code s3://}).
     */
    public static DeltaSinkBuilder forRowData(String path, RowType rowType) {
        return new DeltaSinkBuilder(path, rowType);
    }

    /** The table's folder, as given to the builder. */
    public String path() {
        return path;
    }

    /** The columns the sink writes. */
    public RowType rowType() {
        return rowType;
    }

    @Override
    public SinkWriter<RowData> createWriter(WriterInitContext context) throws IOException {
        return new ParquetSinkWriter(
                path,
                rowType,
                context.getJobInfo().getJobId().toString(),
                context.getTaskInfo().getIndexOfThisSubtask());
    }

    @Override
    public Committer<DeltaCommittable> createCommitter(CommitterInitContext context) {
        return new CheckpointCommitter(path);
    }

    @Override
    public SimpleVersionedSerializer<DeltaCommittable> getCommittableSerializer() {
        return new DeltaCommittableSerializer();
    }

    @Override
    public SimpleVersionedSerializer<DataFile> getWriteResultSerializer() {
        return new DataFileSerializer();
    }

    /**
     * Routes every subtask's files to one task that makes them one committable per checkpoint, and
     * that one committable to one committer subtask: a Delta commit is one file in the log, so a
     * checkpoint must be one commit, never one per subtask.
     */
    @Override
    public DataStream<CommittableMessage<DeltaCommittable>> addPreCommitTopology(
            DataStream<CommittableMessage<DataFile>> writeResults) {
        return writeResults
                .global()
                .transform(
                        "Delta files per checkpoint: " + path,
                        CommittableMessageTypeInfo.of(DeltaCommittableSerializer::new),
                        new CheckpointFiles(path, tableType, properties))
                .setParallelism(1)
                .setMaxParallelism(1)
                .global();
    }
}
