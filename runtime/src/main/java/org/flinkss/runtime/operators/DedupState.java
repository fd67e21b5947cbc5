package org.flinkss.runtime.operators;

import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The keyed state of a {@link DedupWithinWatermark}, shared by the operator and by whoever reads
 * its checkpoints ({@code state show}): one place for the names and types.
 */
public final class DedupState {

    /** Per remembered key: the watermark (epoch ms) at which it may be forgotten. */
    public static final String EXPIRES_AT = "expires-at";

    /** Under a bucket's holder key, namespace the bucket: the bucket's keys and their expiries. */
    public static final String EXPIRING = "expiring";

    private DedupState() {}

    /** When a remembered key may be forgotten: a watermark, epoch milliseconds. */
    public static ValueStateDescriptor<Long> expiresAt() {
        return new ValueStateDescriptor<>(EXPIRES_AT, Types.LONG);
    }
}
