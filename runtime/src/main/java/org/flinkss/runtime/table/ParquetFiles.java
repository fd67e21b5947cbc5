package org.flinkss.runtime.table;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.connector.file.src.util.RecordAndPosition;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.formats.parquet.ParquetColumnarRowInputFormat;
import org.apache.flink.formats.parquet.ParquetWriterFactory;
import org.apache.flink.formats.parquet.row.ParquetRowDataBuilder;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Parquet part files of a table, written and read with flink-parquet. Timestamps are stored as
 * instants (UTC), as Spark stores {@code TIMESTAMP}.
 */
public final class ParquetFiles {

    public static final String SUFFIX = ".parquet";
    private static final int BATCH_SIZE = 2048;

    private ParquetFiles() {}

    static org.apache.hadoop.conf.Configuration hadoopConf() {
        return new org.apache.hadoop.conf.Configuration(false);
    }

    public static ParquetWriterFactory<RowData> writerFactory(RowType rowType) {
        org.apache.hadoop.conf.Configuration conf = hadoopConf();
        // Event times are unique per row: a dictionary only grows until Parquet gives up on it,
        // which cost a third of bronze's time. Plain encoding plus Snappy is faster and as small.
        conf.setBoolean("parquet.enable.dictionary", false);
        conf.set("parquet.compression", "SNAPPY");
        return ParquetRowDataBuilder.createWriterFactory(rowType, conf, true);
    }

    /**
     * Writes rows to a new file (that must not exist), whole: for files renamed into a table
     * afterwards.
     */
    public static void write(Path file, RowType rowType, Iterable<RowData> rows)
            throws IOException {
        org.apache.flink.core.fs.Path target = new org.apache.flink.core.fs.Path(file.toUri());
        try (FSDataOutputStream out =
                FileSystem.getLocalFileSystem().create(target, FileSystem.WriteMode.NO_OVERWRITE)) {
            BulkWriter<RowData> writer = writerFactory(rowType).create(out);
            for (RowData row : rows) {
                writer.addElement(row);
            }
            writer.finish();
        }
    }

    /** Rows in a part file, from its footer (no data is read). */
    public static long rowCount(Path file) throws IOException {
        try (ParquetFileReader reader =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(file.toUri()), hadoopConf()))) {
            return reader.getRecordCount();
        }
    }

    /** Reads a part file row by row, from row {@code skip} on; rows are copies, safe to keep. */
    public static RowIterator open(Path file, RowType rowType, long skip) throws IOException {
        ParquetColumnarRowInputFormat<FileSourceSplit> format =
                new ParquetColumnarRowInputFormat<>(
                        hadoopConf(),
                        rowType,
                        InternalTypeInfo.of(rowType),
                        BATCH_SIZE,
                        true,
                        true);
        long length = Files.size(file);
        FileSourceSplit split =
                new FileSourceSplit(
                        file.getFileName().toString(),
                        new org.apache.flink.core.fs.Path(file.toUri()),
                        0,
                        length,
                        Files.getLastModifiedTime(file).toMillis(),
                        length);
        BulkFormat.Reader<RowData> reader =
                skip > 0
                        ? format.restoreReader(
                                new Configuration(),
                                split.updateWithCheckpointedPosition(
                                        new CheckpointedPosition(
                                                CheckpointedPosition.NO_OFFSET, skip)))
                        : format.createReader(new Configuration(), split);
        return new RowIterator(reader, new RowDataSerializer(rowType), skip);
    }

    public static List<RowData> readAll(Path file, RowType rowType) throws IOException {
        List<RowData> rows = new ArrayList<>();
        try (RowIterator it = open(file, rowType, 0)) {
            RowData row;
            while ((row = it.next()) != null) {
                rows.add(row);
            }
        }
        return rows;
    }

    /** Rows of one part file. */
    public static final class RowIterator implements Closeable {
        private final BulkFormat.Reader<RowData> reader;
        private final RowDataSerializer serializer;
        private BulkFormat.RecordIterator<RowData> batch;
        private long position;

        RowIterator(
                BulkFormat.Reader<RowData> reader, RowDataSerializer serializer, long position) {
            this.reader = reader;
            this.serializer = serializer;
            this.position = position;
        }

        @Nullable
        public RowData next() throws IOException {
            while (true) {
                if (batch == null) {
                    batch = reader.readBatch();
                    if (batch == null) {
                        return null;
                    }
                }
                RecordAndPosition<RowData> next = batch.next();
                if (next != null) {
                    position++;
                    // Vectorized rows are views into a reused batch: copy before handing on.
                    return serializer.copy(next.getRecord());
                }
                batch.releaseBatch();
                batch = null;
            }
        }

        public long position() {
            return position;
        }

        @Override
        public void close() throws IOException {
            if (batch != null) {
                batch.releaseBatch();
            }
            reader.close();
        }
    }
}
