package org.flinkss.course.event;

/**
 * Spark's {@code hash()} SQL function for the column types the course's generator hashes: 32-bit
 * Murmur3 (x86 variant) with seed 42, folded over the columns so that the hash of one column is the
 * seed of the next.
 *
 * <p>Bit for bit as Spark's {@code Murmur3_x86_32}: an int is one 4-byte block, a long is its low
 * int then its high int (which equals Murmur3 over the long's 8 little-endian bytes).
 */
public final class SparkHash {

    /** The seed of Spark's {@code hash()}. */
    public static final int SEED = 42;

    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private SparkHash() {}

    /** Spark's {@code hash(id, literal)} for a LONG column followed by an INT literal. */
    public static int hash(long id, int literal) {
        return hashInt(literal, hashLong(id, SEED));
    }

    /** {@code Murmur3_x86_32.hashInt}. */
    public static int hashInt(int value, int seed) {
        return fmix(mixH1(seed, mixK1(value)), 4);
    }

    /** {@code Murmur3_x86_32.hashLong}. */
    public static int hashLong(long value, int seed) {
        int h1 = mixH1(seed, mixK1((int) value));
        h1 = mixH1(h1, mixK1((int) (value >>> 32)));
        return fmix(h1, 8);
    }

    /** Spark's {@code pmod}: the remainder with the sign of the divisor. */
    public static int pmod(int a, int n) {
        int r = a % n;
        return r < 0 ? (r + n) % n : r;
    }

    private static int mixK1(int k1) {
        k1 *= C1;
        k1 = Integer.rotateLeft(k1, 15);
        return k1 * C2;
    }

    private static int mixH1(int h1, int k1) {
        h1 ^= k1;
        h1 = Integer.rotateLeft(h1, 13);
        return h1 * 5 + 0xe6546b64;
    }

    private static int fmix(int h1, int length) {
        h1 ^= length;
        h1 ^= h1 >>> 16;
        h1 *= 0x85ebca6b;
        h1 ^= h1 >>> 13;
        h1 *= 0xc2b2ae35;
        return h1 ^ (h1 >>> 16);
    }
}
