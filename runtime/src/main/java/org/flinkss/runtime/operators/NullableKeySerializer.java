package org.flinkss.runtime.operators;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import java.io.IOException;

/**
 * A {@link NullableKey} in keyed state and on the wire: one byte (1 for the null key), then the
 * value's 8 bytes (0 for the null key), so every key has the same length. Its snapshot is
 * versioned: a checkpoint written by another version of it is refused with a message that says what
 * to do, not misread.
 */
public final class NullableKeySerializer extends TypeSerializerSingleton<NullableKey> {

    private static final long serialVersionUID = 1L;

    public static final NullableKeySerializer INSTANCE = new NullableKeySerializer();

    private NullableKeySerializer() {}

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public NullableKey createInstance() {
        return NullableKey.of((Long) null);
    }

    @Override
    public NullableKey copy(NullableKey from) {
        return from;
    }

    @Override
    public NullableKey copy(NullableKey from, NullableKey reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return 9;
    }

    @Override
    public void serialize(NullableKey key, DataOutputView target) throws IOException {
        target.writeBoolean(key.isNull());
        target.writeLong(key.value());
    }

    @Override
    public NullableKey deserialize(DataInputView source) throws IOException {
        boolean isNull = source.readBoolean();
        return NullableKey.read(isNull, source.readLong());
    }

    @Override
    public NullableKey deserialize(NullableKey reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        target.write(source, 9);
    }

    @Override
    public TypeSerializerSnapshot<NullableKey> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer's snapshot: no configuration; the format's version is its version. */
    public static final class Snapshot implements TypeSerializerSnapshot<NullableKey> {

        /** The version of the format above. */
        static final int VERSION = 1;

        @Override
        public int getCurrentVersion() {
            return VERSION;
        }

        @Override
        public void writeSnapshot(DataOutputView out) {}

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
                throws IOException {
            if (readVersion != VERSION) {
                throw new IOException(
                        "the checkpoint holds keys in nullable-key format "
                                + readVersion
                                + ", which this flinkss does not read (it reads format "
                                + VERSION
                                + "): run the flinkss that wrote the checkpoint, or 'reset' the"
                                + " query");
            }
        }

        @Override
        public TypeSerializer<NullableKey> restoreSerializer() {
            return INSTANCE;
        }

        @Override
        public TypeSerializerSchemaCompatibility<NullableKey> resolveSchemaCompatibility(
                TypeSerializerSnapshot<NullableKey> oldSerializerSnapshot) {
            return oldSerializerSnapshot instanceof Snapshot
                            && oldSerializerSnapshot.getCurrentVersion() == VERSION
                    ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                    : TypeSerializerSchemaCompatibility.incompatible();
        }
    }
}
