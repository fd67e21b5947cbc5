package org.flinkss.source.internal;

import org.apache.flink.core.io.SimpleVersionedSerializer;

import org.flinkss.source.WorkSplit;

/** Makes the package-private serializers of this package reachable from the source. */
public final class SerializerFactory {

    private SerializerFactory() {}

    public static <S extends WorkSplit> SimpleVersionedSerializer<MicroBatchSplit<S>> splits(
            SimpleVersionedSerializer<S> work) {
        return new MicroBatchSplit.Serializer<>(work);
    }

    public static <S extends WorkSplit>
            SimpleVersionedSerializer<EnumeratorState<S>> enumeratorState(
                    SimpleVersionedSerializer<S> work) {
        return new EnumeratorState.Serializer<>(work);
    }
}
