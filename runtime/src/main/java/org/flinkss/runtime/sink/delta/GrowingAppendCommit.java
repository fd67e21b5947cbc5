package org.flinkss.runtime.sink.delta;

import org.apache.flink.table.types.logical.RowType;

import org.flinkss.runtime.PermanentFailure;
import org.flinkss.runtime.table.delta.CommitResult;
import org.flinkss.runtime.table.delta.DataFile;
import org.flinkss.runtime.table.delta.DeltaTable;
import org.flinkss.runtime.table.delta.SchemaGrowth;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link AppendCommit} for a table whose columns grow ({@link GrowingFileWriter}): the columns the
 * batch's files hold beyond the table's are added in the batch's one commit ({@link
 * DeltaTable#appendWithSchema}: the new schema, the files and the {@code txn} in one version), in
 * the order the files are committed in. A batch that adds none is a plain append. Two files that
 * bring one column with two types (two readers that each saw it first with another type) fail the
 * batch before anything is committed, naming the column, both types and the file.
 */
public final class GrowingAppendCommit implements TableCommit {

    private static final long serialVersionUID = 1L;

    private final String table;

    /**
     * @param table the table's name, for errors
     */
    public GrowingAppendCommit(String table) {
        this.table = table;
    }

    @Override
    public CommitResult commit(DeltaTable delta, String queryId, long batchId, List<byte[]> items) {
        List<GrownFile> grown = new ArrayList<>(items.size());
        for (byte[] item : items) {
            grown.add(GrownFile.fromBytes(item));
        }
        grown.sort((a, b) -> DataFileWriter.COMMIT_ORDER.compare(a.file(), b.file()));
        List<DataFile> files =
                AppendCommit.atCommitTime(grown.stream().map(GrownFile::file).toList());
        RowType current = delta.rowType();
        RowType columns = current;
        try {
            for (GrownFile file : grown) {
                columns =
                        SchemaGrowth.union(
                                columns, file.added(), table, "data file " + file.file().name());
            }
        } catch (IllegalStateException e) {
            // The same files come back in every attempt: no restart can commit them.
            throw new PermanentFailure(
                    "batch "
                            + batchId
                            + " of table '"
                            + table
                            + "' not committed: "
                            + e.getMessage(),
                    e);
        }
        return columns == current
                ? delta.append(queryId, batchId, files)
                : delta.appendWithSchema(queryId, batchId, files, columns);
    }

    @Override
    public byte[] restored(byte[] item, String folder) {
        GrownFile file = GrownFile.fromBytes(item);
        DataFile here =
                DataFile.fromBytes(new AppendCommit().restored(file.file().toBytes(), folder));
        return here.path().equals(file.file().path())
                ? item
                : new GrownFile(here, file.added()).toBytes();
    }
}
