package org.flinkss.course.event;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

import org.flinkss.runtime.operators.SerializerType;

import java.io.IOException;
import java.time.Instant;

/**
 * An {@link Event} on the wire between operators: one byte saying which fields are null, then the
 * others (8 + 4 bytes of the string's UTF-16 in Flink's string format + 12 + 8), without the POJO
 * serializer's reflection (a field accessor per field and a byte per field in each direction, about
 * a tenth of each side of dedup's shuffle). Its {@link #TYPE} is for streams that cross a network,
 * not for state: nothing here stores an {@link Event} in state with it, and the Table API needs the
 * POJO type to see the columns.
 */
public final class EventSerializer extends TypeSerializerSingleton<Event> {

    private static final long serialVersionUID = 1L;

    public static final EventSerializer INSTANCE = new EventSerializer();

    /** The type of a DataStream of events that uses this serializer. */
    public static final TypeInformation<Event> TYPE =
            new SerializerType<>(Event.class, INSTANCE, false);

    private static final int NO_EVENT_ID = 1;
    private static final int NO_USER_ID = 2;
    private static final int NO_EVENT_TYPE = 4;
    private static final int NO_EVENT_TS = 8;
    private static final int NO_AMOUNT = 16;

    private EventSerializer() {}

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public Event createInstance() {
        return new Event();
    }

    @Override
    public Event copy(Event from) {
        return new Event(from.eventId, from.userId, from.eventType, from.eventTs, from.amount);
    }

    @Override
    public Event copy(Event from, Event reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(Event e, DataOutputView target) throws IOException {
        int nulls =
                (e.eventId == null ? NO_EVENT_ID : 0)
                        | (e.userId == null ? NO_USER_ID : 0)
                        | (e.eventType == null ? NO_EVENT_TYPE : 0)
                        | (e.eventTs == null ? NO_EVENT_TS : 0)
                        | (e.amount == null ? NO_AMOUNT : 0);
        target.writeByte(nulls);
        if (e.eventId != null) {
            target.writeLong(e.eventId);
        }
        if (e.userId != null) {
            target.writeInt(e.userId);
        }
        if (e.eventType != null) {
            StringValue.writeString(e.eventType, target);
        }
        if (e.eventTs != null) {
            target.writeLong(e.eventTs.getEpochSecond());
            target.writeInt(e.eventTs.getNano());
        }
        if (e.amount != null) {
            target.writeDouble(e.amount);
        }
    }

    @Override
    public Event deserialize(DataInputView source) throws IOException {
        int nulls = source.readByte();
        Event e = new Event();
        if ((nulls & NO_EVENT_ID) == 0) {
            e.eventId = source.readLong();
        }
        if ((nulls & NO_USER_ID) == 0) {
            e.userId = source.readInt();
        }
        if ((nulls & NO_EVENT_TYPE) == 0) {
            e.eventType = StringValue.readString(source);
        }
        if ((nulls & NO_EVENT_TS) == 0) {
            long seconds = source.readLong();
            e.eventTs = Instant.ofEpochSecond(seconds, source.readInt());
        }
        if ((nulls & NO_AMOUNT) == 0) {
            e.amount = source.readDouble();
        }
        return e;
    }

    @Override
    public Event deserialize(Event reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public TypeSerializerSnapshot<Event> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer's snapshot: no configuration, version 1. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Event> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
