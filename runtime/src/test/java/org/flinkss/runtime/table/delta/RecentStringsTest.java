package org.flinkss.runtime.table.delta;

import org.apache.flink.table.data.binary.BinaryStringData;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A string column's recent values are shared by the rows that repeat them, and only those. */
class RecentStringsTest {

    @Test
    void aRepeatedValueIsTheSameStringAndEveryValueReadsAsWritten() {
        List<String> values =
                List.of("view", "purchase", "view", "", "žluťoučký", "view", "", "purchase", "vie");
        ByteBuffer in = plain(values, false);
        RecentStrings strings = new RecentStrings();

        BinaryStringData[] read = new BinaryStringData[values.size()];
        for (int i = 0; i < values.size(); i++) {
            read[i] = strings.read(in);
            assertThat(read[i].toString()).isEqualTo(values.get(i));
        }
        assertThat(in.remaining()).isZero();
        assertThat(read[2]).isSameAs(read[0]).isSameAs(read[5]);
        assertThat(read[6]).isSameAs(read[3]);
        assertThat(read[7]).isSameAs(read[1]);
        assertThat(read[8]).isNotSameAs(read[0]);
    }

    @Test
    void longValuesAndBuffersWithoutAnArrayAreReadAsTheyAre() {
        String longValue = "x".repeat(RecentStrings.MAX_LENGTH + 1);
        RecentStrings strings = new RecentStrings();
        ByteBuffer in = plain(List.of(longValue, longValue), false);
        BinaryStringData first = strings.read(in);
        assertThat(strings.read(in)).isNotSameAs(first).isEqualTo(first);
        assertThat(first.toString()).isEqualTo(longValue);

        ByteBuffer direct = plain(List.of("view", "view"), true);
        BinaryStringData view = strings.read(direct);
        assertThat(strings.read(direct)).isNotSameAs(view).isEqualTo(view);
        assertThat(direct.remaining()).isZero();
    }

    @Test
    void moreThanItsSlotsOfValuesEvictTheOldestAndAColumnOfUniqueValuesStopsLooking() {
        RecentStrings strings = new RecentStrings();
        List<String> seventeen = new java.util.ArrayList<>();
        for (int i = 0; i < 17; i++) {
            seventeen.add("v" + i);
        }
        ByteBuffer in = plain(seventeen, false);
        for (int i = 0; i < 17; i++) {
            strings.read(in);
        }
        ByteBuffer again = plain(List.of("v16", "v16"), false);
        assertThat(strings.read(again)).isSameAs(strings.read(again));

        RecentStrings unique = new RecentStrings();
        List<String> values = new java.util.ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            values.add("u" + i);
        }
        values.add("same");
        values.add("same");
        ByteBuffer many = plain(values, false);
        for (int i = 0; i < 5000; i++) {
            assertThat(unique.read(many).toString()).isEqualTo("u" + i);
        }
        BinaryStringData same = unique.read(many);
        assertThat(unique.read(many)).isNotSameAs(same).isEqualTo(same);
    }

    /** The values as a Parquet page holds plain strings: a little-endian length, then the bytes. */
    private static ByteBuffer plain(List<String> values, boolean direct) {
        int size = 0;
        for (String v : values) {
            size += 4 + v.getBytes(StandardCharsets.UTF_8).length;
        }
        ByteBuffer buffer =
                (direct ? ByteBuffer.allocateDirect(size + 3) : ByteBuffer.allocate(size + 3))
                        .order(ByteOrder.LITTLE_ENDIAN);
        buffer.position(3); // a page's values start after its levels
        for (String v : values) {
            byte[] bytes = v.getBytes(StandardCharsets.UTF_8);
            buffer.putInt(bytes.length).put(bytes);
        }
        buffer.position(3);
        return buffer.slice().order(ByteOrder.LITTLE_ENDIAN);
    }
}
