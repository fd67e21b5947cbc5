package org.flinkss.runtime.operators;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import java.util.Objects;

/**
 * The type of a stream whose records one hand-written serializer writes: an opaque type (no fields
 * for the Table API), a key type if asked. Equal for the same class and serializer.
 *
 * @param <T> the records
 */
public final class SerializerType<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> typeClass;
    private final TypeSerializer<T> serializer;
    private final boolean keyType;

    /**
     * @param keyType whether streams may be keyed by it (its {@code hashCode} must be the same in
     *     every JVM)
     */
    public SerializerType(Class<T> typeClass, TypeSerializer<T> serializer, boolean keyType) {
        this.typeClass = Objects.requireNonNull(typeClass);
        this.serializer = Objects.requireNonNull(serializer);
        this.keyType = keyType;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<T> getTypeClass() {
        return typeClass;
    }

    @Override
    public boolean isKeyType() {
        return keyType;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer;
    }

    @Override
    public String toString() {
        return typeClass.getSimpleName() + "(" + serializer.getClass().getSimpleName() + ")";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof SerializerType<?> other
                && other.typeClass == typeClass
                && other.serializer.getClass() == serializer.getClass()
                && other.keyType == keyType;
    }

    @Override
    public int hashCode() {
        return Objects.hash(typeClass, serializer.getClass(), keyType);
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof SerializerType;
    }
}
