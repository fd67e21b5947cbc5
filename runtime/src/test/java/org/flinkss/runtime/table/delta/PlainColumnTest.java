package org.flinkss.runtime.table.delta;

import org.apache.flink.table.types.logical.BigIntType;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A chunk of plain pages read value by value, across pages (an empty one among them), and a chunk
 * that changes encoding or ends early refused with the file and the column named.
 */
class PlainColumnTest {

    private static final PrimitiveType ID =
            new PrimitiveType(
                    Type.Repetition.REQUIRED, PrimitiveType.PrimitiveTypeName.INT64, "id");
    private static final ColumnDescriptor COLUMN =
            new ColumnDescriptor(new String[] {"id"}, ID, 0, 0);

    @Test
    void readsAndSkipsAcrossPagesEvenAnEmptyOne() throws IOException {
        PageReader pages = pages(page(1L, 2L), page(), page(3L), page(4L, 5L));
        PlainColumn column = column(pages);

        assertThat(column.next()).isEqualTo(1L);
        column.skip();
        assertThat(column.next()).isEqualTo(3L);
        column.skip();
        assertThat(column.next()).isEqualTo(5L);
    }

    @Test
    void aChunkThatChangesEncodingOrEndsEarlyIsRefusedNamingTheFileAndTheColumn()
            throws IOException {
        DataPage dictionaryEncoded =
                new DataPageV1(
                        BytesInput.from(new byte[] {0}),
                        1,
                        1,
                        Statistics.createStats(ID),
                        Encoding.RLE,
                        Encoding.RLE,
                        Encoding.RLE_DICTIONARY);
        PlainColumn changing = column(pages(page(1L), dictionaryEncoded));
        assertThat(changing.next()).isEqualTo(1L);
        assertThatThrownBy(changing::next)
                .isInstanceOf(IOException.class)
                .hasMessageContaining("part-0.parquet: column id changes from plain-encoded pages");

        PlainColumn ending = column(pages(page(1L)));
        ending.next();
        assertThatThrownBy(ending::next)
                .isInstanceOf(IOException.class)
                .hasMessageContaining("part-0.parquet: column id has fewer values");
    }

    @Test
    void onlyAChunkWithoutADictionaryWhoseFirstPageIsPlainIsReadHere() {
        DataPage plain = page(1L);
        assertThat(PlainColumn.reads(null, plain)).isTrue();
        DictionaryPage dictionary =
                new DictionaryPage(BytesInput.from(new byte[8]), 1, Encoding.PLAIN_DICTIONARY);
        assertThat(PlainColumn.reads(dictionary, plain)).isFalse();
        assertThat(PlainColumn.reads(null, null)).isFalse();
        assertThat(PlainColumn.Value.of(new BigIntType(), ID.getPrimitiveTypeName()))
                .isEqualTo(PlainColumn.Value.INT64);
    }

    private static PlainColumn column(PageReader pages) {
        return new PlainColumn(
                pages, pages.readPage(), COLUMN, PlainColumn.Value.INT64, "/t/part-0.parquet");
    }

    /** A version-1 page of a required column: no levels, the longs little-endian. */
    private static DataPage page(long... values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            bytes.putLong(v);
        }
        return new DataPageV1(
                BytesInput.from(bytes.array()),
                values.length,
                values.length * 8,
                Statistics.createStats(ID),
                Encoding.BIT_PACKED,
                Encoding.BIT_PACKED,
                Encoding.PLAIN);
    }

    private static PageReader pages(DataPage... pages) {
        ArrayDeque<DataPage> left = new ArrayDeque<>(List.of(pages));
        return new PageReader() {
            @Override
            public DictionaryPage readDictionaryPage() {
                return null;
            }

            @Override
            public long getTotalValueCount() {
                return 0;
            }

            @Override
            public DataPage readPage() {
                return left.poll();
            }
        };
    }
}
