package org.flinkss.course.event;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Instant;

/**
 * Thread CPU of serializing then deserializing 1,000,000 course events as dedup's keyBy does, with
 * Flink's POJO serializer and with {@link EventSerializer}, interleaved (not a test).
 *
 * <p>Run: {@code java -cp <test classpath> org.flinkss.course.event.EventSerializerBench [rounds]}.
 */
public final class EventSerializerBench {

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int n = 1_000_000;
        Event[] events = new Event[n];
        String[] types = {"view", "add_to_cart", "purchase"};
        Instant t0 = Instant.parse("2025-03-01T00:00:00Z");
        for (int i = 0; i < n; i++) {
            events[i] =
                    new Event(
                            (long) i,
                            i % 1000,
                            types[i % 3],
                            t0.plusMillis(i * 10_000L).plusNanos(123_000),
                            i % 50 == 0 ? null : i / 100.0);
        }
        TypeSerializer<Event> pojo =
                TypeInformation.of(Event.class).createSerializer(new SerializerConfigImpl());
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        DataOutputSerializer out = new DataOutputSerializer(64 << 20);
        for (int r = 0; r < rounds; r++) {
            for (TypeSerializer<Event> s : java.util.List.of(pojo, EventSerializer.INSTANCE)) {
                long cpu = mx.getCurrentThreadCpuTime();
                out.clear();
                for (Event e : events) {
                    s.serialize(e, out);
                }
                long ser = mx.getCurrentThreadCpuTime() - cpu;
                DataInputDeserializer in = new DataInputDeserializer(out.getSharedBuffer());
                long sum = 0;
                for (int i = 0; i < n; i++) {
                    sum += s.deserialize(in).eventId;
                }
                long total = mx.getCurrentThreadCpuTime() - cpu;
                System.out.printf(
                        "round %d %-16s serialize %5.1f ns, deserialize %5.1f ns per event,"
                                + " %d bytes (%d)%n",
                        r,
                        s == pojo ? "POJO" : "EventSerializer",
                        (double) ser / n,
                        (double) (total - ser) / n,
                        out.length(),
                        sum);
            }
        }
    }
}
