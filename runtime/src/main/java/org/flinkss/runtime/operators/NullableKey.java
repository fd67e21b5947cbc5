package org.flinkss.runtime.operators;

import org.apache.flink.api.common.typeinfo.TypeInformation;

import javax.annotation.Nullable;

/**
 * The key of a keyed stream whose column may be SQL's NULL (issue 37 point 5). Flink keys cannot be
 * null, and every long is a possible event id (every int a possible user id), so no value can stand
 * in for NULL without colliding with a real one: an id of {@link Long#MIN_VALUE} was dropped as a
 * duplicate of a null id, and a buy of user {@link Integer#MIN_VALUE} joined the views without a
 * user. This key holds the value or says it is null; Spark groups all nulls as one key, and so does
 * this (which a join must not match: see its callers).
 *
 * <p>Immutable, with a hash that is the same in every JVM (Flink assigns key groups by it). Its
 * {@link #TYPE} serializes it in 9 bytes with {@link NullableKeySerializer}.
 */
public final class NullableKey {

    /** The type of a stream keyed by nullable keys. */
    public static final TypeInformation<NullableKey> TYPE =
            new SerializerType<>(NullableKey.class, NullableKeySerializer.INSTANCE, true);

    private static final NullableKey NULL = new NullableKey(true, 0);

    private final boolean isNull;
    private final long value;

    private NullableKey(boolean isNull, long value) {
        this.isNull = isNull;
        this.value = value;
    }

    /** The key of a LONG column's value, or of its NULL. */
    public static NullableKey of(@Nullable Long value) {
        return value == null ? NULL : new NullableKey(false, value);
    }

    /** The key of an INT column's value, or of its NULL. */
    public static NullableKey of(@Nullable Integer value) {
        return value == null ? NULL : new NullableKey(false, value);
    }

    static NullableKey read(boolean isNull, long value) {
        return isNull ? NULL : new NullableKey(false, value);
    }

    public boolean isNull() {
        return isNull;
    }

    /** The value; 0 for the null key. */
    public long value() {
        return value;
    }

    /** The value as a LONG column holds it: null for the null key. */
    @Nullable
    public Long asLong() {
        return isNull ? null : value;
    }

    /** The value as an INT column holds it: null for the null key. */
    @Nullable
    public Integer asInt() {
        return isNull ? null : (int) value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NullableKey other && other.isNull == isNull && other.value == value;
    }

    @Override
    public int hashCode() {
        // Any fixed value for the null key: it is one key, in one key group.
        return isNull ? 0x7F4A7C15 : Long.hashCode(value);
    }

    @Override
    public String toString() {
        return isNull ? "NULL" : Long.toString(value);
    }
}
