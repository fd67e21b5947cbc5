package org.flinkss.course.event;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Events cross the network with {@link EventSerializer} exactly as they were: every combination of
 * null fields, instants before 1970 with nanoseconds, strings beyond ASCII, NaN and -0.0, several
 * events back to back; and its snapshot restores the same serializer.
 */
class EventSerializerTest {

    static List<Event> events() {
        Long[] ids = {1L, Long.MIN_VALUE, Long.MAX_VALUE};
        Integer[] users = {0, Integer.MIN_VALUE, 42};
        String[] types = {"view", "", "žluťoučký kůň 😀 " + "x".repeat(300)};
        Instant[] times = {
            Instant.parse("2025-03-01T12:00:00.123456Z"),
            Instant.parse("1969-12-31T23:59:59.999999999Z"),
            Instant.EPOCH
        };
        Double[] amounts = {Double.NaN, -0.0, 12.5};
        List<Event> events = new ArrayList<>();
        for (int nulls = 0; nulls < 32; nulls++) {
            for (int v = 0; v < 3; v++) {
                events.add(
                        new Event(
                                (nulls & 1) != 0 ? null : ids[v],
                                (nulls & 2) != 0 ? null : users[v],
                                (nulls & 4) != 0 ? null : types[v],
                                (nulls & 8) != 0 ? null : times[v],
                                (nulls & 16) != 0 ? null : amounts[v]));
            }
        }
        return events;
    }

    @Test
    void everyEventReadsBackEqualWithEveryCombinationOfNulls() throws Exception {
        TypeSerializer<Event> serializer =
                EventSerializer.TYPE.createSerializer(new SerializerConfigImpl());
        List<Event> events = events();
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (Event e : events) {
            serializer.serialize(e, out);
        }
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        List<Event> read = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            read.add(serializer.deserialize(in));
        }

        assertThat(read).isEqualTo(events);
        assertThat(in.available()).isZero();
        assertThat(read.get(1).eventTs).isEqualTo(Instant.parse("1969-12-31T23:59:59.999999999Z"));
        assertThat(serializer.copy(events.get(40))).isEqualTo(events.get(40));
    }

    /**
     * The serializer writes Event's five fields by hand: a field added to Event would cross the
     * network as null, silently. This fails first, naming what to change.
     */
    @Test
    void writesEveryFieldThatEventHas() {
        List<String> fields =
                java.util.Arrays.stream(Event.class.getDeclaredFields())
                        .filter(f -> !java.lang.reflect.Modifier.isStatic(f.getModifiers()))
                        .map(java.lang.reflect.Field::getName)
                        .toList();

        assertThat(fields)
                .as(
                        "Event's fields: a new one must be written and read by EventSerializer"
                                + " (serialize, deserialize, copy, its null bits) and its"
                                + " snapshot's version raised")
                .containsExactlyInAnyOrder("eventId", "userId", "eventType", "eventTs", "amount");
    }

    @Test
    void copyingSerializedBytesGivesTheSameBytes() throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (Event e : events()) {
            EventSerializer.INSTANCE.serialize(e, out);
        }
        byte[] bytes = out.getCopyOfBuffer();
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        DataOutputSerializer copied = new DataOutputSerializer(64);
        for (int i = 0; i < events().size(); i++) {
            EventSerializer.INSTANCE.copy(in, copied);
        }
        assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);
    }

    @Test
    void itsSnapshotRestoresItAsCompatible() throws Exception {
        TypeSerializerSnapshot<Event> snapshot = EventSerializer.INSTANCE.snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(16);
        snapshot.writeSnapshot(out);
        TypeSerializerSnapshot<Event> read = new EventSerializer.Snapshot();
        read.readSnapshot(
                snapshot.getCurrentVersion(),
                new DataInputDeserializer(out.getCopyOfBuffer()),
                getClass().getClassLoader());

        assertThat(read.restoreSerializer()).isSameAs(EventSerializer.INSTANCE);
        assertThat(
                        EventSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(read)
                                .isCompatibleAsIs())
                .isTrue();
        assertThat(EventSerializer.TYPE).isNotEqualTo(TypeInformation.of(Event.class));
    }
}
