package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.formats.parquet.utils.ParquetSchemaConverter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes rows of a flat {@link RowType} to one Parquet file straight from {@link RowData}'s typed
 * getters to parquet-mr's record consumer, with the file layout flink-parquet's writer gives the
 * same row type (its schema, {@code INT96} timestamps in UTC, Snappy, plain encoding), and hands
 * back the footer parquet-mr built while writing, so the file is never read again to learn its
 * statistics. Timestamp columns have no footer statistics ({@code INT96} has no order, so no reader
 * uses a min or max of it): their null counts are counted here ({@link #countedNulls}).
 *
 * <p>Why not flink-parquet's {@code ParquetRowDataWriter}: it copies every string twice (UTF-8
 * encoding, then {@code toBytes}), allocates a {@code ByteBuffer} per timestamp, builds a Hadoop
 * {@code Configuration} per file, and its {@code BulkWriter} hides the footer, which cost a read of
 * every file just written (an extra GET per file on an object store).
 *
 * <p>Timestamps are written at their full precision (nanoseconds of the {@link TimestampData}) with
 * the day and the time of day floored, so an instant before 1970 has a time of day in {@code [0,
 * 24h)} as Spark writes it (flink-parquet truncates toward zero: a negative time of day, which its
 * own reader turns into a negative nano-of-millisecond).
 */
final class RowParquetWriter {

    private final ParquetWriter<RowData> writer;
    private final CountingOutputFile file;
    private final RowWriteSupport support;

    private RowParquetWriter(
            ParquetWriter<RowData> writer, CountingOutputFile file, RowWriteSupport support) {
        this.writer = writer;
        this.file = file;
        this.support = support;
    }

    /** Whether every column of {@code rowType} is one this writer writes itself. */
    static boolean covers(RowType rowType) {
        for (LogicalType type : rowType.getChildren()) {
            switch (type.getTypeRoot()) {
                case BIGINT:
                case INTEGER:
                case DATE:
                case CHAR:
                case VARCHAR:
                case DOUBLE:
                case BOOLEAN:
                case BINARY:
                case VARBINARY:
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                    continue;
                default:
                    return false;
            }
        }
        return true;
    }

    /** A writer of rows of {@code rowType} (which it {@link #covers}) to {@code out}. */
    static RowParquetWriter open(FSDataOutputStream out, RowType rowType) throws IOException {
        CountingOutputFile file = new CountingOutputFile(out);
        RowWriteSupport support = new RowWriteSupport(rowType);
        Builder builder =
                new Builder(file, support)
                        .withConf(new PlainParquetConfiguration())
                        .withCompressionCodec(CompressionCodecName.SNAPPY)
                        .withDictionaryEncoding(false);
        for (int i = 0; i < support.types.length; i++) {
            if (support.countsNulls[i]) {
                // INT96 has no order: parquet-mr compares every value for a min and max that it
                // never writes (a fifth of the writing); the writer counts the nulls itself.
                builder.withStatisticsEnabled(support.names[i], false);
            }
        }
        return new RowParquetWriter(builder.build(), file, support);
    }

    void write(RowData row) throws IOException {
        writer.write(row);
    }

    /**
     * Writes the footer and closes the stream; the footer as a reader of the file sees it (the
     * statistics converted to the file's form and back: a reader's normalisations included).
     */
    ParquetMetadata finish() throws IOException {
        writer.close();
        ParquetMetadataConverter converter = new ParquetMetadataConverter();
        return converter.fromParquetMetadata(
                converter.toParquetMetadata(ParquetFileWriter.CURRENT_VERSION, writer.getFooter()));
    }

    /**
     * Null counts of the columns whose footer statistics are off (the timestamps), by column name.
     */
    Map<String, Long> countedNulls() {
        Map<String, Long> nulls = new HashMap<>();
        for (int i = 0; i < support.names.length; i++) {
            if (support.countsNulls[i]) {
                nulls.put(support.names[i], support.nulls[i]);
            }
        }
        return nulls;
    }

    /** Bytes written to the stream so far: the file's size once {@link #finish}ed. */
    long size() {
        return file.position;
    }

    private static final class Builder extends ParquetWriter.Builder<RowData, Builder> {
        private final RowWriteSupport support;

        Builder(OutputFile file, RowWriteSupport support) {
            super(file);
            this.support = support;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<RowData> getWriteSupport(org.apache.hadoop.conf.Configuration conf) {
            return support;
        }

        @Override
        protected WriteSupport<RowData> getWriteSupport(ParquetConfiguration conf) {
            return support;
        }
    }

    /** One row, one record: each non-null column through its typed writer. */
    private static final class RowWriteSupport extends WriteSupport<RowData> {
        private final MessageType schema;
        private final String[] names;
        private final LogicalType[] types;
        private final boolean[] countsNulls;
        private final long[] nulls;
        private RecordConsumer consumer;
        private FieldWriter[] writers;

        RowWriteSupport(RowType rowType) {
            // flink-parquet's own schema for the row type: files read back exactly as before.
            this.schema =
                    ParquetSchemaConverter.convertToParquetMessageType(
                            "flink_schema",
                            rowType,
                            new org.apache.hadoop.conf.Configuration(false));
            this.names = rowType.getFieldNames().toArray(new String[0]);
            this.types = rowType.getChildren().toArray(new LogicalType[0]);
            this.countsNulls = new boolean[types.length];
            for (int i = 0; i < types.length; i++) {
                LogicalTypeRoot root = types[i].getTypeRoot();
                countsNulls[i] =
                        root == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE
                                || root == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE;
            }
            this.nulls = new long[types.length];
        }

        @Override
        public WriteContext init(org.apache.hadoop.conf.Configuration configuration) {
            return new WriteContext(schema, new HashMap<>());
        }

        @Override
        public WriteContext init(ParquetConfiguration configuration) {
            return new WriteContext(schema, new HashMap<>());
        }

        @Override
        public void prepareForWrite(RecordConsumer recordConsumer) {
            this.consumer = recordConsumer;
            this.writers = new FieldWriter[types.length];
            for (int i = 0; i < types.length; i++) {
                writers[i] = writer(types[i], recordConsumer);
            }
        }

        @Override
        public void write(RowData row) {
            consumer.startMessage();
            for (int i = 0; i < writers.length; i++) {
                if (!row.isNullAt(i)) {
                    consumer.startField(names[i], i);
                    writers[i].write(row, i);
                    consumer.endField(names[i], i);
                } else if (countsNulls[i]) {
                    nulls[i]++;
                }
            }
            consumer.endMessage();
        }
    }

    private interface FieldWriter {
        void write(RowData row, int pos);
    }

    private static FieldWriter writer(LogicalType type, RecordConsumer consumer) {
        switch (type.getTypeRoot()) {
            case BIGINT:
                return (row, pos) -> consumer.addLong(row.getLong(pos));
            case INTEGER:
            case DATE:
                return (row, pos) -> consumer.addInteger(row.getInt(pos));
            case DOUBLE:
                return (row, pos) -> consumer.addDouble(row.getDouble(pos));
            case BOOLEAN:
                return (row, pos) -> consumer.addBoolean(row.getBoolean(pos));
            case BINARY:
            case VARBINARY:
                return (row, pos) ->
                        consumer.addBinary(Binary.fromReusedByteArray(row.getBinary(pos)));
            case CHAR:
            case VARCHAR:
                return (row, pos) -> consumer.addBinary(utf8(row.getString(pos)));
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return new Int96Writer(consumer, ((TimestampType) type).getPrecision());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return new Int96Writer(consumer, ((LocalZonedTimestampType) type).getPrecision());
            default:
                throw new IllegalArgumentException(
                        "type " + type + " is not one RowParquetWriter writes: check covers()");
        }
    }

    /**
     * A string's UTF-8 bytes without a copy where it already has them (a string read from binary
     * rows), encoded once by the JDK where it is a Java string.
     */
    private static Binary utf8(StringData string) {
        if (string instanceof BinaryStringData) {
            BinaryStringData s = (BinaryStringData) string;
            if (s.getBinarySection() == null) {
                return Binary.fromReusedByteArray(
                        s.getJavaObject().getBytes(StandardCharsets.UTF_8));
            }
            MemorySegment[] segments = s.getSegments();
            if (segments.length == 1 && !segments[0].isOffHeap()) {
                return Binary.fromReusedByteArray(
                        segments[0].getArray(), s.getOffset(), s.getSizeInBytes());
            }
        }
        return Binary.fromReusedByteArray(string.toBytes());
    }

    /**
     * {@code INT96}: nanoseconds of the day (8 bytes) then the Julian day (4 bytes), little-endian,
     * in one reused buffer (parquet-mr copies what it keeps).
     */
    private static final class Int96Writer implements FieldWriter {
        private final RecordConsumer consumer;
        private final int precision;
        private final byte[] buffer = new byte[Int96.LENGTH];

        Int96Writer(RecordConsumer consumer, int precision) {
            this.consumer = consumer;
            this.precision = precision;
        }

        @Override
        public void write(RowData row, int pos) {
            Int96.encode(row.getTimestamp(pos, precision), buffer);
            consumer.addBinary(Binary.fromReusedByteArray(buffer));
        }
    }

    /** Parquet's output file on an open Flink stream, counting the bytes written. */
    private static final class CountingOutputFile implements OutputFile {
        private final FSDataOutputStream out;
        private long position;
        private boolean closed;

        CountingOutputFile(FSDataOutputStream out) {
            this.out = out;
        }

        @Override
        public PositionOutputStream create(long blockSizeHint) {
            return new PositionOutputStream() {
                @Override
                public long getPos() {
                    return position;
                }

                @Override
                public void write(int b) throws IOException {
                    out.write(b);
                    position++;
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                    position += len;
                }

                @Override
                public void flush() throws IOException {
                    out.flush();
                }

                @Override
                public void close() throws IOException {
                    if (!closed) {
                        closed = true;
                        out.close();
                    }
                }
            };
        }

        @Override
        public PositionOutputStream createOrOverwrite(long blockSizeHint) {
            return create(blockSizeHint);
        }

        @Override
        public boolean supportsBlockSize() {
            return false;
        }

        @Override
        public long defaultBlockSize() {
            return 0;
        }
    }
}
