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

    public Reading() {}

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
                && value == r.value;
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
