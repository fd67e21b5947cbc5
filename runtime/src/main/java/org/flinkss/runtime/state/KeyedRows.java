package org.flinkss.runtime.state;

import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.List;

/**
 * A keyed operator's state as rows, read from a restore point by a batch job of Flink's State
 * Processor API (through Flink's file systems, so on an object store too). The query's retained
 * checkpoints are RocksDB's incremental ones: only the RocksDB backend reads them (a savepoint, in
 * the canonical format, any backend would).
 */
final class KeyedRows {

    private KeyedRows() {}

    /** Every row the view's reader makes of the operator's keys, unsorted. */
    static <K> List<Row> read(StatePoint point, KeyedStateView<K> view) {
        MetadataReader.load(point); // a damaged point is said in one line, before any job
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> read =
                SavepointReader.read(
                                env, point.location().toString(), new EmbeddedRocksDBStateBackend())
                        .readKeyedState(
                                OperatorIdentifier.forUid(view.uid()),
                                view.reader(),
                                view.keyType(),
                                view.rowType())
                        .executeAndCollect("state of " + view.uid() + " in " + point.shown())) {
            read.forEachRemaining(rows::add);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot read the state of operator "
                            + view.uid()
                            + " in "
                            + point.describe()
                            + ": "
                            + String.valueOf(e.getMessage()).split("\n")[0],
                    e);
        }
        return rows;
    }
}
