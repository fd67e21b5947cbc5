package org.flinkss.runtime.table.delta;

import org.apache.flink.table.types.logical.LogicalType;

import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.schema.PrimitiveType;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A column chunk of version-1 data pages of {@code PLAIN} values and no dictionary, what {@link
 * RowParquetWriter} writes, decoded straight from each page's bytes: one read of the buffer per
 * value, where parquet-mr's column reader makes a buffer slice and a {@code Binary} for every
 * string and timestamp and copies it again into the row. Definition and repetition levels are read
 * with parquet-mr's own level readers, as its column reader reads them.
 */
final class PlainColumn implements ColumnCursor {

    private final PageReader pages;
    private final ColumnDescriptor column;
    private final Value value;
    private final ValueReader reader;

    private final int maxDefinition;
    private final String file;
    @Nullable private DataPage peeked;
    private ValuesReader definitions;
    private ByteBuffer values;
    private int leftInPage;

    /**
     * Reads {@code pages}, whose first data page, already taken from it, is {@code first}: call
     * only when {@link #reads} says so.
     */
    PlainColumn(
            PageReader pages, DataPage first, ColumnDescriptor column, Value value, String file) {
        this.pages = pages;
        this.peeked = first;
        this.column = column;
        this.value = value;
        this.reader = value.reader();
        this.maxDefinition = column.getMaxDefinitionLevel();
        this.file = file;
    }

    /** Whether a chunk with this dictionary page (null: none) and first data page is read here. */
    static boolean reads(@Nullable DictionaryPage dictionary, @Nullable DataPage first) {
        return dictionary == null && isPlain(first);
    }

    private static boolean isPlain(@Nullable DataPage page) {
        return page instanceof DataPageV1
                && ((DataPageV1) page).getValueEncoding() == Encoding.PLAIN;
    }

    @Nullable
    @Override
    public Object next() throws IOException {
        while (leftInPage == 0) {
            nextPage();
        }
        leftInPage--;
        if (maxDefinition != 0 && definitions.readInteger() != maxDefinition) {
            return null;
        }
        return reader.read(values);
    }

    @Override
    public void skip() throws IOException {
        while (leftInPage == 0) {
            nextPage();
        }
        leftInPage--;
        if (maxDefinition == 0 || definitions.readInteger() == maxDefinition) {
            value.skip(values);
        }
    }

    private void nextPage() throws IOException {
        DataPage page = peeked != null ? peeked : pages.readPage();
        peeked = null;
        if (page == null) {
            throw new IOException(
                    String.format(
                            "%s: column %s has fewer values than its row group has rows; the file"
                                    + " is damaged",
                            file, String.join(".", column.getPath())));
        }
        if (!isPlain(page)) {
            throw new IOException(
                    String.format(
                            "%s: column %s changes from plain-encoded pages to %s in one row group,"
                                    + " which no writer of these tables does; the file is damaged"
                                    + " or was not written here",
                            file, String.join(".", column.getPath()), page));
        }
        DataPageV1 v1 = (DataPageV1) page;
        int count = v1.getValueCount();
        ByteBufferInputStream in = v1.getBytes().toInputStream();
        ValuesReader repetitions =
                v1.getRlEncoding().getValuesReader(column, ValuesType.REPETITION_LEVEL);
        repetitions.initFromPage(count, in);
        definitions = v1.getDlEncoding().getValuesReader(column, ValuesType.DEFINITION_LEVEL);
        definitions.initFromPage(count, in);
        values = in.slice(in.available()).order(ByteOrder.LITTLE_ENDIAN);
        leftInPage = count;
    }

    /** Reads the plain value at a buffer's position, as the row holds it. */
    @FunctionalInterface
    interface ValueReader {
        Object read(ByteBuffer in);
    }

    /** How a plain value of a column is read as the row holds it, and skipped. */
    enum Value {
        INT64 {
            @Override
            ValueReader reader() {
                return ByteBuffer::getLong;
            }

            @Override
            void skip(ByteBuffer in) {
                in.position(in.position() + Long.BYTES);
            }
        },
        INT32 {
            @Override
            ValueReader reader() {
                return ByteBuffer::getInt;
            }

            @Override
            void skip(ByteBuffer in) {
                in.position(in.position() + Integer.BYTES);
            }
        },
        DOUBLE {
            @Override
            ValueReader reader() {
                return ByteBuffer::getDouble;
            }

            @Override
            void skip(ByteBuffer in) {
                in.position(in.position() + Double.BYTES);
            }
        },
        INT96 {
            @Override
            ValueReader reader() {
                return in -> {
                    long nanosOfDay = in.getLong();
                    return Int96.decode(nanosOfDay, in.getInt());
                };
            }

            @Override
            void skip(ByteBuffer in) {
                in.position(in.position() + Int96.LENGTH);
            }
        },
        STRING {
            /**
             * A column's own: it keeps the column's recent values, for the rows that repeat them.
             */
            @Override
            ValueReader reader() {
                return new RecentStrings()::read;
            }

            @Override
            void skip(ByteBuffer in) {
                BYTES.skip(in);
            }
        },
        BYTES {
            @Override
            ValueReader reader() {
                return in -> {
                    byte[] bytes = new byte[in.getInt()];
                    in.get(bytes);
                    return bytes;
                };
            }

            @Override
            void skip(ByteBuffer in) {
                int length = in.getInt();
                in.position(in.position() + length);
            }
        };

        /** A reader for one column (a string column's keeps state: make one per column). */
        abstract ValueReader reader();

        abstract void skip(ByteBuffer in);

        /**
         * The plain value of {@code type} in a column of {@code physical} type, which {@link
         * RowParquetReader} has found to go together; null for booleans (bit-packed, left to
         * parquet-mr's column reader).
         */
        @Nullable
        static Value of(LogicalType type, PrimitiveType.PrimitiveTypeName physical) {
            switch (physical) {
                case INT64:
                    return INT64;
                case INT32:
                    return INT32;
                case DOUBLE:
                    return DOUBLE;
                case INT96:
                    return INT96;
                case BINARY:
                    switch (type.getTypeRoot()) {
                        case CHAR:
                        case VARCHAR:
                            return STRING;
                        default:
                            return BYTES;
                    }
                default:
                    return null;
            }
        }
    }
}
