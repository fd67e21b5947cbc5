package org.flinkss.runtime.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;

import java.util.Map;

/**
 * The partial aggregate of one key's rows in one fixed window, as a {@link WindowCombiner} sends it
 * across the shuffle to the {@link WindowAggregate} that merges it: Spark's partial {@code
 * HashAggregate} row. The window is {@code [start, accumulator.end())}, epoch milliseconds.
 *
 * @param <K> the grouping key
 * @param <A> the accumulator
 */
public final class WindowPartial<K, A extends WindowAggregate.Ended> {

    public K key;
    public long start;
    public A accumulator;

    public WindowPartial() {}

    public WindowPartial(K key, long start, A accumulator) {
        this.key = key;
        this.start = start;
        this.accumulator = accumulator;
    }

    /** Its Flink type: a POJO of the key's and the accumulator's types. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <K, A extends WindowAggregate.Ended> TypeInformation<WindowPartial<K, A>> type(
            TypeInformation<K> keyType, TypeInformation<A> accumulatorType) {
        return (TypeInformation)
                Types.POJO(
                        WindowPartial.class,
                        Map.of(
                                "key", keyType,
                                "start", Types.LONG,
                                "accumulator", accumulatorType));
    }

    @Override
    public String toString() {
        return key + " [" + start + ", " + accumulator.end() + "): " + accumulator;
    }
}
