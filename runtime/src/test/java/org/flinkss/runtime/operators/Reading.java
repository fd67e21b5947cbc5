package org.flinkss.runtime.operators;

import java.time.Instant;
import java.util.Objects;

/**
 * A row of the operator tests: a key, an event time (or none) and a value. A Flink POJO, as the
 * course's events are.
 */
public class Reading {

    public String key;
    public Long time;
    public long value;

    /** The event time in epoch microseconds, when it has some past its millisecond. */
    public Long micros;

    public Reading() {}

    /** A row at {@code micros} (epoch microseconds), its millisecond as {@code time}. */
    public static Reading atMicros(String key, long micros, long value) {
        Reading r = new Reading(key, Math.floorDiv(micros, 1000), value);
        r.micros = micros;
        return r;
    }

    public Reading(String key, Long time, long value) {
        this.key = key;
        this.time = time;
        this.value = value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Reading r
                && Objects.equals(key, r.key)
                && Objects.equals(time, r.time)
                && value == r.value
                && Objects.equals(micros, r.micros);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, time, value);
    }

    /** {@code key@HH:mm:ss.SSS=value}, as the tests write their expectations. */
    @Override
    public String toString() {
        String at = time == null ? "none" : Instant.ofEpochMilli(time).toString().substring(11);
        return key + "@" + at.replace("Z", "") + "=" + value;
    }
}
