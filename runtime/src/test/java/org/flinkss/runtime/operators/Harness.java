package org.flinkss.runtime.operators;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;

import org.flinkss.runtime.time.Watermarks;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import java.util.stream.Collectors;

/**
 * What the operator tests share: times of 2025-03-01 written as {@code HH:mm}, a {@link Reading}
 * pushed at its time, Spark's watermark as an operator gets it, and the window operators' keyed
 * state read back as lines.
 */
final class Harness {

    private Harness() {}

    /** 2025-03-01 at {@code HH:mm} or {@code HH:mm:ss[.SSS]}, UTC. */
    static long at(String time) {
        String t = time.length() == 5 ? time + ":00" : time;
        return Instant.parse("2025-03-01T" + t + "Z").toEpochMilli();
    }

    /** 2025-03-01 at {@code HH:mm:ss.SSSSSS}, UTC, in epoch microseconds. */
    static long atMicros(String time) {
        Instant t = Instant.parse("2025-03-01T" + time + "Z");
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
    }

    /** {@code HH:mm}, or {@code HH:mm:ss[.SSS[SSS]]} when the seconds matter. */
    static String hhmm(long epochMillis) {
        return clock(epochMillis * 1000);
    }

    /** {@link #hhmm} of a time in epoch microseconds. */
    static String clock(long epochMicros) {
        Instant t0 =
                Instant.ofEpochSecond(
                        Math.floorDiv(epochMicros, 1_000_000),
                        Math.floorMod(epochMicros, 1_000_000) * 1000);
        String t = t0.toString().substring(11).replace("Z", "");
        return t.endsWith(":00") ? t.substring(0, 5) : t;
    }

    /** A row of {@code key} at {@code time}, with its event time as the record's timestamp. */
    static void push(
            OneInputStreamOperatorTestHarness<Reading, ?> h, String key, String time, long value)
            throws Exception {
        h.processElement(new Reading(key, at(time), value), at(time));
    }

    /** Spark's watermark {@code time}, as the operator gets it (Flink's is one less). */
    static void watermark(OneInputStreamOperatorTestHarness<?, ?> h, String time) throws Exception {
        h.processWatermark(Watermarks.toFlink(at(time)));
    }

    /**
     * The windows in a window operator's keyed state ({@code windows}: start -> {@link Tally}), as
     * {@code key [start-end) rows}, keys in order.
     *
     * @param time a window's start or end as it is kept, written as a clock
     */
    static List<String> windows(
            KeyedOneInputStreamOperatorTestHarness<String, ?, ?> h, LongFunction<String> time)
            throws Exception {
        KeyedStateBackend<String> backend = h.getOperator().getKeyedStateBackend();
        MapStateDescriptor<Long, Tally> descriptor =
                new MapStateDescriptor<>("windows", Types.LONG, Types.POJO(Tally.class));
        List<String> keys;
        try (var stream = backend.getKeys("windows", VoidNamespace.INSTANCE)) {
            keys = stream.sorted().collect(Collectors.toList());
        }
        List<String> windows = new ArrayList<>();
        for (String key : keys) {
            backend.setCurrentKey(key);
            MapState<Long, Tally> state =
                    backend.getPartitionedState(
                            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
            Map<Long, Tally> byStart = new TreeMap<>();
            for (Map.Entry<Long, Tally> e : state.entries()) {
                byStart.put(e.getKey(), e.getValue());
            }
            byStart.forEach(
                    (start, acc) ->
                            windows.add(
                                    key
                                            + " ["
                                            + time.apply(start)
                                            + "-"
                                            + time.apply(acc.end)
                                            + ") "
                                            + acc.rows));
        }
        return windows;
    }
}
