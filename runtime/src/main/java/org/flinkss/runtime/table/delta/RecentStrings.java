package org.flinkss.runtime.table.delta;

import org.apache.flink.table.data.binary.BinaryStringData;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The last few distinct short strings of one column, so that a column of a handful of values (an
 * event type, a country) gives the same {@link BinaryStringData} for the same bytes: made once,
 * decoded to a Java string once (it keeps the string it decoded), and that string's hash computed
 * once, where a new one per row cost an allocation, a UTF-8 decoding and a hash in every row a
 * query reads. {@link BinaryStringData} is immutable, so rows may share one. A column whose values
 * seldom repeat stops looking after a while and reads each value as it is.
 */
final class RecentStrings {

    /** Longer strings are read as they are: seldom repeated, and costly to compare. */
    static final int MAX_LENGTH = 64;

    private static final int SLOTS = 16;

    /** Values read before a column that misses more than it hits stops looking. */
    private static final int TRIAL = 4096;

    private final byte[][] bytes = new byte[SLOTS][];
    private final BinaryStringData[] strings = new BinaryStringData[SLOTS];
    private int used;
    private int next;
    private int hits;
    private int misses;
    private boolean looking = true;

    /** The plain-encoded string at {@code in}'s position (its length, then its bytes). */
    BinaryStringData read(ByteBuffer in) {
        int length = in.getInt();
        if (!looking || length > MAX_LENGTH || !in.hasArray()) {
            return BinaryStringData.fromBytes(take(in, length));
        }
        byte[] array = in.array();
        int from = in.arrayOffset() + in.position();
        for (int i = 0; i < used; i++) {
            byte[] known = bytes[i];
            if (known.length == length
                    && Arrays.equals(known, 0, length, array, from, from + length)) {
                in.position(in.position() + length);
                hits++;
                return strings[i];
            }
        }
        byte[] value = take(in, length);
        BinaryStringData string = BinaryStringData.fromBytes(value);
        bytes[next] = value;
        strings[next] = string;
        next = (next + 1) % SLOTS;
        used = Math.max(used, next == 0 ? SLOTS : next);
        if (++misses + hits >= TRIAL && misses > hits) {
            looking = false;
        }
        return string;
    }

    private static byte[] take(ByteBuffer in, int length) {
        byte[] value = new byte[length];
        in.get(value);
        return value;
    }
}
