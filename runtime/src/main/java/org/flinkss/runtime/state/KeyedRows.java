package org.flinkss.runtime.state;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.FileUtils;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
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
        // An embedded cluster's working folders (minicluster_*, RocksDB's restore) go to a folder
        // of this read's own, deleted after it: they were left in the temp directory.
        File tmp = temporaryFolder();
        Configuration conf = new Configuration();
        conf.set(CoreOptions.TMP_DIRS, tmp.getAbsolutePath());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
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
        } finally {
            FileUtils.deleteDirectoryQuietly(tmp);
        }
        return rows;
    }

    private static File temporaryFolder() {
        try {
            return Files.createTempDirectory("flinkss-state-").toFile();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot create a temporary folder to read state in: " + e.getMessage(), e);
        }
    }
}
