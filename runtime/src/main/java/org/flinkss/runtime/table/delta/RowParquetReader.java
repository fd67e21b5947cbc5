package org.flinkss.runtime.table.delta;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.util.HadoopCodecs;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PrimitiveIterator;

/**
 * Reads the data files of the Delta tables here row by row with parquet-mr's column readers, into
 * the rows flink-parquet's vectorized reader gives once copied ({@link GenericRowData} of {@code
 * Long}, {@code Integer}, {@code Double}, {@code Boolean}, {@link BinaryStringData}, {@code byte[]}
 * and {@link TimestampData}): the counterpart of {@link RowParquetWriter}, for the same column
 * types ({@link RowParquetWriter#covers}). A column chunk of plain-encoded version-1 pages (the
 * project's writer's) is decoded from the pages' bytes by {@link PlainColumn}; any other (a
 * dictionary, version-2 pages, booleans) through parquet-mr's column reader.
 *
 * <p>Why not flink-parquet's reader: each file it opens builds parquet-mr's read options with a new
 * Hadoop {@code Configuration} that loads and parses {@code core-default.xml} (a third of a Delta
 * source's time on a table of a few hundred files), and it fills column vectors that the source
 * then copies row by row. Here the Hadoop configuration is one, empty, made once; values go from
 * the page to the row.
 *
 * <p>A file whose columns are not the physical types flink-parquet's schema gives these types (an
 * {@code INT64} timestamp another writer chose, a nested or repeated column) is not read here:
 * {@link #open} returns null and the caller reads it with flink-parquet. A column of the row type
 * that the file lacks reads as nulls, as flink-parquet reads it.
 */
final class RowParquetReader implements DataFiles.RowIterator {

    /**
     * One empty Hadoop configuration (no default resources) for the codecs: parquet-mr's own reads
     * nothing from it, and an empty one is never parsed from XML.
     */
    private static final org.apache.hadoop.conf.Configuration CODECS_CONF = codecsConf();

    private final ParquetFileReader reader;
    private final String file;
    private final MessageType requested;
    private final String createdBy;
    private final ColumnDescriptor[] descriptors;
    private final ValueReader[] values;
    private final PlainColumn.Value[] plainValues;
    private final int arity;
    private final ColumnCursor[] columns;
    private long rowsLeftInGroup;
    private long position;

    private RowParquetReader(
            ParquetFileReader reader,
            String file,
            MessageType requested,
            ColumnDescriptor[] descriptors,
            ValueReader[] values,
            PlainColumn.Value[] plainValues) {
        this.reader = reader;
        this.file = file;
        this.requested = requested;
        this.createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
        this.descriptors = descriptors;
        this.values = values;
        this.plainValues = plainValues;
        this.arity = values.length;
        this.columns = new ColumnCursor[arity];
    }

    private static org.apache.hadoop.conf.Configuration codecsConf() {
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
        conf.setClassLoader(RowParquetReader.class.getClassLoader());
        return conf;
    }

    /**
     * The rows of {@code file} from row {@code skip} on, or null if a column of the file is not one
     * this reader reads as {@code rowType}'s (the caller reads it with flink-parquet then). {@code
     * rowType} must be one {@link RowParquetWriter#covers}.
     */
    @Nullable
    static RowParquetReader open(InputFile file, RowType rowType, long skip) throws IOException {
        // Options per file (a codec factory holds decompressors and is not for two threads), all
        // from objects made once: no Hadoop configuration is built here.
        ParquetReadOptions options =
                ParquetReadOptions.builder(new PlainParquetConfiguration())
                        .withCodecFactory(HadoopCodecs.newFactory(CODECS_CONF, 0))
                        .useStatsFilter(false)
                        .useDictionaryFilter(false)
                        .useRecordFilter(false)
                        .useColumnIndexFilter(false)
                        .useBloomFilter(false)
                        .build();
        ParquetFileReader reader = ParquetFileReader.open(file, options);
        try {
            MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            int arity = rowType.getFieldCount();
            ColumnDescriptor[] descriptors = new ColumnDescriptor[arity];
            ValueReader[] values = new ValueReader[arity];
            PlainColumn.Value[] plainValues = new PlainColumn.Value[arity];
            List<Type> projected = new ArrayList<>();
            for (int i = 0; i < arity; i++) {
                String name = rowType.getFieldNames().get(i);
                if (!schema.containsField(name)) {
                    continue; // an older file without this column: nulls
                }
                Type field = schema.getType(name);
                if (!field.isPrimitive() || field.isRepetition(Type.Repetition.REPEATED)) {
                    reader.close();
                    return null;
                }
                ValueReader value = valueReader(rowType.getTypeAt(i), field.asPrimitiveType());
                if (value == null) {
                    reader.close();
                    return null;
                }
                values[i] = value;
                plainValues[i] =
                        PlainColumn.Value.of(
                                rowType.getTypeAt(i),
                                field.asPrimitiveType().getPrimitiveTypeName());
                projected.add(field);
            }
            MessageType requested = new MessageType(schema.getName(), projected);
            for (int i = 0; i < arity; i++) {
                if (values[i] != null) {
                    descriptors[i] =
                            requested.getColumnDescription(
                                    new String[] {rowType.getFieldNames().get(i)});
                }
            }
            reader.setRequestedSchema(requested);
            RowParquetReader rows =
                    new RowParquetReader(
                            reader, file.toString(), requested, descriptors, values, plainValues);
            rows.skip(skip);
            return rows;
        } catch (IOException | RuntimeException e) {
            reader.close();
            throw e;
        }
    }

    /** How a value of {@code type} is read from the file's column, or null if it is not read. */
    @Nullable
    private static ValueReader valueReader(LogicalType type, PrimitiveType column) {
        PrimitiveType.PrimitiveTypeName physical = column.getPrimitiveTypeName();
        LogicalTypeAnnotation logical = column.getLogicalTypeAnnotation();
        switch (type.getTypeRoot()) {
            case BIGINT:
                return physical == PrimitiveType.PrimitiveTypeName.INT64 && logical == null
                        ? c -> c.getLong()
                        : null;
            case INTEGER:
                return physical == PrimitiveType.PrimitiveTypeName.INT32 && logical == null
                        ? c -> c.getInteger()
                        : null;
            case DATE:
                return physical == PrimitiveType.PrimitiveTypeName.INT32
                                && logical
                                        instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation
                        ? c -> c.getInteger()
                        : null;
            case DOUBLE:
                return physical == PrimitiveType.PrimitiveTypeName.DOUBLE
                        ? c -> c.getDouble()
                        : null;
            case BOOLEAN:
                return physical == PrimitiveType.PrimitiveTypeName.BOOLEAN
                        ? c -> c.getBoolean()
                        : null;
            case CHAR:
            case VARCHAR:
                return physical == PrimitiveType.PrimitiveTypeName.BINARY
                        ? c -> BinaryStringData.fromBytes(c.getBinary().getBytes())
                        : null;
            case BINARY:
            case VARBINARY:
                return physical == PrimitiveType.PrimitiveTypeName.BINARY
                        ? c -> c.getBinary().getBytes()
                        : null;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return physical == PrimitiveType.PrimitiveTypeName.INT96
                        ? c -> Int96.decode(c.getBinary())
                        : null;
            default:
                return null;
        }
    }

    @Nullable
    @Override
    public RowData next() throws IOException {
        if (rowsLeftInGroup == 0 && !nextGroup()) {
            return null;
        }
        GenericRowData row = new GenericRowData(arity);
        for (int i = 0; i < arity; i++) {
            ColumnCursor column = columns[i];
            if (column != null) {
                row.setField(i, column.next());
            }
        }
        rowsLeftInGroup--;
        position++;
        return row;
    }

    /**
     * Moves to the next row group with rows; false at the end of the file. Each column chunk's
     * dictionary page and first data page say how it is read: {@link PlainColumn} when it can,
     * parquet-mr's column reader (given back the pages looked at) otherwise.
     */
    private boolean nextGroup() throws IOException {
        while (rowsLeftInGroup == 0) {
            PageReadStore pages = reader.readNextRowGroup();
            if (pages == null) {
                return false;
            }
            rowsLeftInGroup = pages.getRowCount();
            if (rowsLeftInGroup == 0) {
                continue;
            }
            LookedAtPages others = new LookedAtPages(pages);
            for (int i = 0; i < arity; i++) {
                ColumnDescriptor descriptor = descriptors[i];
                if (descriptor == null) {
                    continue;
                }
                PageReader chunk = pages.getPageReader(descriptor);
                DictionaryPage dictionary = chunk.readDictionaryPage();
                DataPage first = chunk.readPage();
                if (plainValues[i] != null && PlainColumn.reads(dictionary, first)) {
                    columns[i] = new PlainColumn(chunk, first, descriptor, plainValues[i], file);
                } else {
                    others.giveBack(descriptor, chunk, dictionary, first);
                    columns[i] = null;
                }
            }
            if (!others.isEmpty()) {
                ColumnReadStoreImpl store =
                        new ColumnReadStoreImpl(others, NO_CONVERTER, requested, createdBy);
                for (int i = 0; i < arity; i++) {
                    if (descriptors[i] != null && others.holds(descriptors[i])) {
                        columns[i] =
                                new ReaderColumn(
                                        store.getColumnReader(descriptors[i]),
                                        values[i],
                                        descriptors[i].getMaxDefinitionLevel());
                    }
                }
            }
        }
        return true;
    }

    /**
     * Skips {@code rows} rows: whole row groups unread, then values one by one. The position is
     * {@code rows} even past the end, as flink-parquet's restored reader counts it.
     */
    private void skip(long rows) throws IOException {
        position = rows;
        List<BlockMetaData> groups = reader.getRowGroups();
        int group = 0;
        while (rows > 0 && group < groups.size() && groups.get(group).getRowCount() <= rows) {
            rows -= groups.get(group).getRowCount();
            reader.skipNextRowGroup();
            group++;
        }
        while (rows > 0 && (rowsLeftInGroup > 0 || nextGroup())) {
            for (int i = 0; i < arity; i++) {
                ColumnCursor column = columns[i];
                if (column != null) {
                    column.skip();
                }
            }
            rowsLeftInGroup--;
            rows--;
        }
    }

    /** How {@code field}'s column of the current row group is read (null: not in the file). */
    @VisibleForTesting
    @Nullable
    ColumnCursor column(int field) {
        return columns[field];
    }

    @Override
    public long position() {
        return position;
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }

    /** One column's value at the reader's current position, as the row holds it. */
    private interface ValueReader {
        Object read(ColumnReader column);
    }

    /** A column chunk read with parquet-mr's column reader and its typed getters. */
    private static final class ReaderColumn implements ColumnCursor {
        private final ColumnReader column;
        private final ValueReader value;
        private final int maxDefinition;

        ReaderColumn(ColumnReader column, ValueReader value, int maxDefinition) {
            this.column = column;
            this.value = value;
            this.maxDefinition = maxDefinition;
        }

        @Nullable
        @Override
        public Object next() {
            Object read =
                    column.getCurrentDefinitionLevel() == maxDefinition ? value.read(column) : null;
            column.consume();
            return read;
        }

        @Override
        public void skip() {
            if (column.getCurrentDefinitionLevel() == maxDefinition) {
                column.skip();
            }
            column.consume();
        }
    }

    /**
     * The row group's chunks that parquet-mr's column reader reads, each with the dictionary page
     * and the first data page already taken from it given back in front of the rest.
     */
    private static final class LookedAtPages implements PageReadStore {
        private final PageReadStore group;
        private final Map<ColumnDescriptor, PageReader> chunks = new HashMap<>();

        LookedAtPages(PageReadStore group) {
            this.group = group;
        }

        void giveBack(
                ColumnDescriptor column,
                PageReader rest,
                @Nullable DictionaryPage dictionary,
                @Nullable DataPage first) {
            chunks.put(
                    column,
                    new PageReader() {
                        @Nullable private DataPage next = first;

                        @Nullable
                        @Override
                        public DictionaryPage readDictionaryPage() {
                            return dictionary;
                        }

                        @Override
                        public long getTotalValueCount() {
                            return rest.getTotalValueCount();
                        }

                        @Nullable
                        @Override
                        public DataPage readPage() {
                            if (next == null) {
                                return rest.readPage();
                            }
                            DataPage page = next;
                            next = null;
                            return page;
                        }
                    });
        }

        boolean isEmpty() {
            return chunks.isEmpty();
        }

        boolean holds(ColumnDescriptor column) {
            return chunks.containsKey(column);
        }

        @Override
        public PageReader getPageReader(ColumnDescriptor column) {
            PageReader chunk = chunks.get(column);
            if (chunk == null) {
                throw new IllegalArgumentException("not a chunk given back: " + column);
            }
            return chunk;
        }

        @Override
        public long getRowCount() {
            return group.getRowCount();
        }

        @Override
        public Optional<Long> getRowIndexOffset() {
            return group.getRowIndexOffset();
        }

        @Override
        public Optional<PrimitiveIterator.OfLong> getRowIndexes() {
            return group.getRowIndexes();
        }
    }

    /**
     * Column readers take a converter for {@code writeCurrentValueToConverter}, never called here:
     * values are taken with the readers' typed getters.
     */
    private static final GroupConverter NO_CONVERTER =
            new GroupConverter() {
                private final PrimitiveConverter primitive = new PrimitiveConverter() {};

                @Override
                public Converter getConverter(int fieldIndex) {
                    return primitive;
                }

                @Override
                public void start() {}

                @Override
                public void end() {}
            };
}
