package org.flinkss.course.event;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class SparkHashTest {

    private static final long[] EDGE_IDS = {
        0L, 1L, 1L << 31, (1L << 31) - 1, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 1740787200L
    };

    @ParameterizedTest(name = "murmur3(\"{0}\", {1}) = {2}")
    @CsvSource({
        // Published test vectors of MurmurHash3_x86_32 (SMHasher's algorithm): they pin the
        // reference implementation below, which the tests then hold SparkHash to.
        "'', 0, 00000000",
        "'', 1, 514E28B7",
        "'', ffffffff, 81F16F39",
        "a, 9747b28c, 7FA09EA6",
        "aa, 9747b28c, 5D211726",
        "aaa, 9747b28c, 283E0130",
        "aaaa, 9747b28c, 5A97808A",
        "abcd, 9747b28c, F0478627",
        "'Hello, world!', 9747b28c, 24884CBA",
        "The quick brown fox jumps over the lazy dog, 9747b28c, 2FA826CD",
    })
    void referenceImplementationMatchesPublishedVectors(String text, String seed, String hash) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        assertThat(murmur3(bytes, (int) Long.parseLong(seed, 16)))
                .isEqualTo((int) Long.parseLong(hash, 16));
    }

    @Test
    void referenceImplementationHashesFourZeroBytes() {
        assertThat(murmur3(new byte[4], 0)).isEqualTo(0x2362F9DE);
    }

    @Test
    void hashIntIsMurmur3OfTheIntsFourLittleEndianBytes() {
        int[] edges = {0, 1, -1, 42, Integer.MIN_VALUE, Integer.MAX_VALUE};
        for (int value : edges) {
            assertThat(SparkHash.hashInt(value, 42)).isEqualTo(murmur3(littleEndian(value), 42));
        }
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            int value = random.nextInt();
            int seed = random.nextInt();
            assertThat(SparkHash.hashInt(value, seed))
                    .isEqualTo(murmur3(littleEndian(value), seed));
        }
    }

    @Test
    void hashLongIsMurmur3OfTheLongsEightLittleEndianBytes() {
        for (long id : EDGE_IDS) {
            assertThat(SparkHash.hashLong(id, 42))
                    .as("id %d", id)
                    .isEqualTo(murmur3(littleEndian(id), 42));
        }
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 10_000; i++) {
            long id = random.nextLong();
            int seed = random.nextInt();
            assertThat(SparkHash.hashLong(id, seed)).isEqualTo(murmur3(littleEndian(id), seed));
        }
    }

    @Test
    void hashFoldsTheLongsHashAsTheSeedOfTheLiteral() {
        for (long id : EDGE_IDS) {
            for (int literal = 1; literal <= 3; literal++) {
                int expected = murmur3(littleEndian(literal), murmur3(littleEndian(id), 42));
                assertThat(SparkHash.hash(id, literal))
                        .as("hash(%d, %d)", id, literal)
                        .isEqualTo(expected);
            }
        }
    }

    @ParameterizedTest(name = "hash({0}, 1..3) = {1}, {2}, {3}")
    @CsvSource({
        // Computed once with the byte-wise reference implementation; kept as literals so that a
        // change to both implementations cannot pass unnoticed.
        "0, 352697503, 1902948777, -1693020406",
        "1, -1144319751, -1846558483, 745818161",
        "2147483648, -1561551869, 48635807, -1625687868",
        "2147483647, -1060434514, -60108233, 1572498184",
        "-1, 693435292, 516815473, 1720387701",
        "9223372036854775807, -749348906, 1113385556, 906224880",
    })
    void hashOfEdgeIdsIsPinned(long id, int literal1, int literal2, int literal3) {
        assertThat(SparkHash.hash(id, 1)).isEqualTo(literal1);
        assertThat(SparkHash.hash(id, 2)).isEqualTo(literal2);
        assertThat(SparkHash.hash(id, 3)).isEqualTo(literal3);
    }

    @ParameterizedTest(name = "id {0}: user {1}, type index {2}, amount cents {3}")
    @CsvSource({
        // oracle-sample.csv (Spark 4.2): user_id 4, 50, 2, 6, 18; view, buy, view, click, view;
        // amount 95.94, 81.61, 65.28, 55.05, 52.68. Types index ["view","click","buy"].
        "0, 4, 0, 9594",
        "1, 50, 2, 8161",
        "2, 2, 0, 6528",
        "3, 6, 1, 5505",
        "4, 18, 0, 5268",
    })
    void oracleRowsFollowFromTheHash(long id, int userId, int typeIndex, int amountCents) {
        assertThat(SparkHash.pmod(SparkHash.hash(id, 1), 50) + 1).isEqualTo(userId);
        assertThat(SparkHash.pmod(SparkHash.hash(id, 2), 3)).isEqualTo(typeIndex);
        assertThat(SparkHash.pmod(SparkHash.hash(id, 3), 10000)).isEqualTo(amountCents);
    }

    @Test
    void negativeHashesGiveNonNegativeRemainders() {
        // hash(1, 1) is negative; Spark's pmod still lands on user 50.
        assertThat(SparkHash.hash(1, 1)).isNegative();
        assertThat(SparkHash.pmod(SparkHash.hash(1, 1), 50)).isEqualTo(49);
        assertThat(SparkHash.hash(0, 3)).isNegative();
        assertThat(SparkHash.pmod(SparkHash.hash(0, 3), 10000)).isEqualTo(9594);
        assertThat(SparkHash.pmod(-7, 3)).isEqualTo(2);
        assertThat(SparkHash.pmod(-9, 3)).isZero();
        assertThat(SparkHash.pmod(Integer.MIN_VALUE, 50))
                .isEqualTo(Math.floorMod(Integer.MIN_VALUE, 50));
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 50, 10000})
    void pmodAgreesWithFloorModForPositiveDivisors(int n) {
        SplittableRandom random = new SplittableRandom(n);
        for (int i = 0; i < 10_000; i++) {
            int a = random.nextInt();
            assertThat(SparkHash.pmod(a, n)).isEqualTo(Math.floorMod(a, n));
        }
    }

    /** MurmurHash3_x86_32 over bytes, as published: 4-byte little-endian blocks, then the tail. */
    private static int murmur3(byte[] data, int seed) {
        int h = seed;
        int blocks = data.length / 4;
        for (int i = 0; i < blocks; i++) {
            int k =
                    (data[4 * i] & 0xff)
                            | (data[4 * i + 1] & 0xff) << 8
                            | (data[4 * i + 2] & 0xff) << 16
                            | (data[4 * i + 3] & 0xff) << 24;
            h ^= scramble(k);
            h = Integer.rotateLeft(h, 13);
            h = h * 5 + 0xe6546b64;
        }
        int tail = blocks * 4;
        int k = 0;
        switch (data.length & 3) {
            case 3:
                k ^= (data[tail + 2] & 0xff) << 16;
            // fall through
            case 2:
                k ^= (data[tail + 1] & 0xff) << 8;
            // fall through
            case 1:
                k ^= data[tail] & 0xff;
                h ^= scramble(k);
                break;
            default:
                break;
        }
        h ^= data.length;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    private static int scramble(int k) {
        k *= 0xcc9e2d51;
        k = Integer.rotateLeft(k, 15);
        return k * 0x1b873593;
    }

    private static byte[] littleEndian(long value) {
        byte[] bytes = new byte[8];
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (value >>> (8 * i));
        }
        return bytes;
    }

    private static byte[] littleEndian(int value) {
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            bytes[i] = (byte) (value >>> (8 * i));
        }
        return bytes;
    }
}
