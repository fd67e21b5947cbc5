package org.flinkss.runtime.operators;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The keyed state of a {@link WindowAggregate}, shared by the operator and by whoever reads its
 * checkpoints ({@code state show}): one place for the names and types, so that a change of one
 * changes both.
 */
public final class WindowAggregateState {

    /** Windows by start (epoch ms for fixed windows, epoch us for sessions): the accumulator. */
    public static final String WINDOWS = "windows";

    /**
     * Sessions, in checkpoints of versions before the sessions were held on the heap: gap-sized
     * time bucket (us) to the starts of the sessions that span it. Nothing reads it any more; a
     * key's is cleared when its sessions are first read.
     */
    public static final String SESSION_INDEX = "session-index";

    private WindowAggregateState() {}

    /** The open windows of a key, by start, with accumulators of {@code accumulatorClass}. */
    public static <A> MapStateDescriptor<Long, A> windows(Class<A> accumulatorClass) {
        return new MapStateDescriptor<>(WINDOWS, Types.LONG, Types.POJO(accumulatorClass));
    }

    /** The index of a key's sessions by time bucket. */
    public static MapStateDescriptor<Long, long[]> sessionIndex() {
        return new MapStateDescriptor<>(
                SESSION_INDEX, Types.LONG, PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);
    }
}
