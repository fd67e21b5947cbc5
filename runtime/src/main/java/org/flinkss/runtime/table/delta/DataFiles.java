package org.flinkss.runtime.table.delta;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.connector.file.src.util.RecordAndPosition;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.formats.parquet.ParquetColumnarRowInputFormat;
import org.apache.flink.formats.parquet.ParquetWriterFactory;
import org.apache.flink.formats.parquet.row.ParquetRowDataBuilder;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;

import org.flinkss.runtime.storage.Storage;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Data files of Delta tables: written by the project's row writer ({@link #create}, the one the
 * project's sinks use: flink-parquet's file layout, statistics kept from the writing), described
 * from their footers, read back as rows; all through Flink's {@code FileSystem}.
 *
 * <p>Timestamps are written as Parquet {@code INT96} (flink-parquet's default, UTC), which is what
 * Spark writes by default and what Delta readers (Spark, Delta Kernel, delta-rs, DuckDB, Trino)
 * read as {@code timestamp}. flink-parquet's other choice, {@code write.int64.timestamp}, marks the
 * column {@code isAdjustedToUTC=false}, i.e. Delta's {@code timestamp_ntz}: Kernel refuses such a
 * file in a {@code timestamp} column. Parquet keeps no min/max for {@code INT96}, so timestamp
 * columns have null counts but no min/max in the log.
 */
public final class DataFiles {

    /** Delta's own prefix length for string statistics; longer values are left out. */
    private static final int MAX_STRING_STAT = 32;

    /** How data files end. */
    public static final String SUFFIX = ".parquet";

    private static final int BATCH_SIZE = 2048;

    private DataFiles() {}

    /**
     * flink-parquet's writer for rows of {@code rowType}: Snappy, plain encoding (event times are
     * unique per row: a dictionary only grows until Parquet gives up on it, which cost a third of
     * bronze's time), timestamps as UTC instants.
     */
    public static ParquetWriterFactory<RowData> writerFactory(RowType rowType) {
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
        conf.setBoolean("parquet.enable.dictionary", false);
        conf.set("parquet.compression", "SNAPPY");
        return ParquetRowDataBuilder.createWriterFactory(rowType, conf, true);
    }

    /**
     * Writes rows to a new data file {@code part-<uuid>.parquet} in {@code folder} and describes
     * it.
     */
    public static DataFile write(Path folder, RowType rowType, Iterable<RowData> rows)
            throws IOException {
        return writeFile(new Path(folder, "part-" + UUID.randomUUID() + SUFFIX), rowType, rows);
    }

    /** Writes rows to the new data file {@code file} (it must not exist) and describes it. */
    public static DataFile writeFile(Path file, RowType rowType, Iterable<RowData> rows)
            throws IOException {
        try (Writer writer = create(file, rowType)) {
            for (RowData row : rows) {
                writer.write(row);
            }
            return writer.finish();
        }
    }

    /**
     * A writer of the new data file {@code file} (it must not exist): {@link Writer#write} each
     * row, then {@link Writer#finish} closes the file and describes it. Rows whose columns are all
     * of the types a Delta table here holds ({@link DeltaSchema}) go through the project's own
     * writer, which keeps the statistics it computed while writing; other row types through
     * flink-parquet's, whose file is then read back for its footer.
     */
    public static Writer create(Path file, RowType rowType) throws IOException {
        FSDataOutputStream out = Storage.create(file, FileSystem.WriteMode.NO_OVERWRITE);
        try {
            return RowParquetWriter.covers(rowType)
                    ? new Writer(file, out, RowParquetWriter.open(out, rowType), null)
                    : new Writer(file, out, null, writerFactory(rowType).create(out));
        } catch (IOException | RuntimeException e) {
            out.close();
            throw e;
        }
    }

    /** One data file being written; {@link #close} without {@link #finish} abandons it. */
    public static final class Writer implements Closeable {
        private final Path file;
        private final FSDataOutputStream out;
        @Nullable private final RowParquetWriter direct;
        @Nullable private final BulkWriter<RowData> bulk;
        private boolean done;

        private Writer(
                Path file,
                FSDataOutputStream out,
                @Nullable RowParquetWriter direct,
                @Nullable BulkWriter<RowData> bulk) {
            this.file = file;
            this.out = out;
            this.direct = direct;
            this.bulk = bulk;
        }

        /** The file being written. */
        public Path path() {
            return file;
        }

        public void write(RowData row) throws IOException {
            if (direct != null) {
                direct.write(row);
            } else {
                bulk.addElement(row);
            }
        }

        /**
         * Writes the footer, closes the file and describes it as an {@code add} action records it
         * (its status for the size and time; the statistics from the footer just written, the
         * timestamps' null counts from the writer).
         */
        public DataFile finish() throws IOException {
            if (direct == null) {
                bulk.finish();
                done = true;
                out.close();
                Storage.sync(file);
                return describe(file);
            }
            ParquetMetadata footer = direct.finish();
            done = true;
            // On the disk before a commit names it: a crash must not leave a committed file torn.
            Storage.sync(file);
            FileStatus status = file.getFileSystem().getFileStatus(file);
            if (status.getLen() != direct.size()) {
                throw new IOException(
                        "data file "
                                + file
                                + " has "
                                + status.getLen()
                                + " bytes where "
                                + direct.size()
                                + " were written: its file system lost part of it; write it again");
            }
            DataFile described = describe(status, footer);
            Map<String, Long> nulls = new HashMap<>(described.nullCounts());
            nulls.putAll(direct.countedNulls());
            return new DataFile(
                    described.path(),
                    described.size(),
                    described.modificationTime(),
                    described.numRecords(),
                    described.minValues(),
                    described.maxValues(),
                    nulls);
        }

        /** Closes the stream; a file not {@link #finish}ed is incomplete and never committed. */
        @Override
        public void close() throws IOException {
            if (!done) {
                done = true;
                out.close();
            }
        }
    }

    /** A data file as an {@code add} action records it: size, time and its footer's statistics. */
    public static DataFile describe(Path file) throws IOException {
        FileSystem fs = file.getFileSystem();
        FileStatus status = fs.getFileStatus(file);
        ParquetMetadata footer;
        try (ParquetFileReader reader =
                ParquetFileReader.open(new FlinkInputFile(fs, file, status.getLen()))) {
            footer = reader.getFooter();
        }
        return describe(status, footer);
    }

    /** A data file from its status and its footer. */
    private static DataFile describe(FileStatus status, ParquetMetadata footer) {
        long records = 0;
        Map<String, Object> min = new HashMap<>();
        Map<String, Object> max = new HashMap<>();
        Map<String, Long> nulls = new HashMap<>();
        List<String> noMinMax = new ArrayList<>();
        List<String> unknownNulls = new ArrayList<>();
        for (BlockMetaData block : footer.getBlocks()) {
            records += block.getRowCount();
            for (ColumnChunkMetaData column : block.getColumns()) {
                if (column.getPath().size() != 1) {
                    continue;
                }
                String name = column.getPath().toArray()[0];
                Statistics<?> stats = column.getStatistics();
                if (stats == null || stats.isEmpty() || !stats.isNumNullsSet()) {
                    unknownNulls.add(name);
                } else {
                    nulls.merge(name, stats.getNumNulls(), Long::sum);
                }
                if (stats != null && !stats.isEmpty() && !stats.hasNonNullValue()) {
                    continue; // an all-null row group changes no bound
                }
                Object lo =
                        stats == null || stats.isEmpty()
                                ? null
                                : value(column.getPrimitiveType(), stats.genericGetMin());
                Object hi =
                        stats == null || stats.isEmpty()
                                ? null
                                : value(column.getPrimitiveType(), stats.genericGetMax());
                if (lo == null || hi == null) {
                    noMinMax.add(name);
                    continue;
                }
                min.merge(name, lo, (a, b) -> compare(a, b) <= 0 ? a : b);
                max.merge(name, hi, (a, b) -> compare(a, b) >= 0 ? a : b);
            }
        }
        for (String name : noMinMax) {
            min.remove(name);
            max.remove(name);
        }
        unknownNulls.forEach(nulls::remove);
        return new DataFile(
                status.getPath().toString(),
                status.getLen(),
                status.getModificationTime(),
                records,
                min,
                max,
                nulls);
    }

    /** A footer statistic as a Java value, or null where the log should not record it. */
    private static Object value(PrimitiveType type, Object stat) {
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        switch (type.getPrimitiveTypeName()) {
            case INT64:
                return logical == null
                                || logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation
                        ? stat
                        : null;
            case INT32:
                return logical == null
                                || logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation
                                || logical
                                        instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation
                        ? stat
                        : null;
            case DOUBLE:
                return Double.isNaN((Double) stat) ? null : stat;
            case BINARY:
                if (logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation) {
                    String s = ((Binary) stat).toStringUsingUTF8();
                    return s.length() <= MAX_STRING_STAT ? s : null;
                }
                return null;
            default:
                return null; // BOOLEAN, INT96 timestamps, ...
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) {
        return ((Comparable) a).compareTo(b);
    }

    /** Every row of a data file ({@link #open}); rows are copies. */
    public static List<RowData> read(Path file, RowType rowType) throws IOException {
        List<RowData> rows = new ArrayList<>();
        try (RowIterator it = open(file, rowType, 0)) {
            RowData row;
            while ((row = it.next()) != null) {
                rows.add(row);
            }
        }
        return rows;
    }

    /**
     * Reads a data file row by row from row {@code skip} on (a stream's reader restored mid-file),
     * on Flink's file system; rows are copies, safe to keep. A row type of the tables' own column
     * types, in a file whose columns have the types the project's writer gives them (whichever
     * writer wrote it), is read by the project's reader ({@link RowParquetReader}), anything else
     * by flink-parquet's vectorized reader; both give the same rows.
     */
    public static RowIterator open(Path file, RowType rowType, long skip) throws IOException {
        FileSystem fs = file.getFileSystem();
        FileStatus status = fs.getFileStatus(file);
        if (RowParquetWriter.covers(rowType)) {
            RowIterator rows =
                    RowParquetReader.open(
                            new FlinkInputFile(fs, file, status.getLen()), rowType, skip);
            if (rows != null) {
                return rows;
            }
        }
        return openWithFlinkParquet(status, rowType, skip);
    }

    /** {@link #open} through flink-parquet's vectorized reader. */
    static RowIterator openWithFlinkParquet(FileStatus status, RowType rowType, long skip)
            throws IOException {
        Path file = status.getPath();
        ParquetColumnarRowInputFormat<FileSourceSplit> format =
                new ParquetColumnarRowInputFormat<>(
                        new org.apache.hadoop.conf.Configuration(false),
                        rowType,
                        InternalTypeInfo.of(rowType),
                        BATCH_SIZE,
                        true,
                        true);
        FileSourceSplit split =
                new FileSourceSplit(
                        file.getName(),
                        file,
                        0,
                        status.getLen(),
                        status.getModificationTime(),
                        status.getLen());
        BulkFormat.Reader<RowData> reader =
                skip > 0
                        ? format.restoreReader(
                                new Configuration(),
                                split.updateWithCheckpointedPosition(
                                        new CheckpointedPosition(
                                                CheckpointedPosition.NO_OFFSET, skip)))
                        : format.createReader(new Configuration(), split);
        return new FlinkParquetRows(reader, new RowDataSerializer(rowType), skip);
    }

    /** The rows of one data file, in order. */
    public interface RowIterator extends Closeable {

        /** The next row (a copy, safe to keep), or null at the end of the file. */
        @Nullable
        RowData next() throws IOException;

        /** Rows read so far, the skipped ones included. */
        long position();
    }

    /** The rows of a file read by flink-parquet's vectorized reader. */
    private static final class FlinkParquetRows implements RowIterator {
        private final BulkFormat.Reader<RowData> reader;
        private final RowDataSerializer serializer;
        private BulkFormat.RecordIterator<RowData> batch;
        private long position;

        FlinkParquetRows(
                BulkFormat.Reader<RowData> reader, RowDataSerializer serializer, long position) {
            this.reader = reader;
            this.serializer = serializer;
            this.position = position;
        }

        @Nullable
        @Override
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

        @Override
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

    /** Parquet's file interface on Flink's file system. */
    static final class FlinkInputFile implements InputFile {
        private final FileSystem fs;
        private final Path path;
        private final long length;

        FlinkInputFile(FileSystem fs, Path path, long length) {
            this.fs = fs;
            this.path = path;
            this.length = length;
        }

        @Override
        public long getLength() {
            return length;
        }

        /** The file's path, for errors that name it. */
        @Override
        public String toString() {
            return path.toString();
        }

        @Override
        public SeekableInputStream newStream() throws IOException {
            FSDataInputStream in = fs.open(path);
            return new DelegatingSeekableInputStream(in) {
                @Override
                public long getPos() throws IOException {
                    return in.getPos();
                }

                @Override
                public void seek(long newPos) throws IOException {
                    in.seek(newPos);
                }
            };
        }
    }
}
