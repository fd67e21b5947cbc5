package org.flinkss.course.event;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The course's {@code land_events} generator, one event per id. Deterministic: the same id gives
 * the same event as Spark's expression, value for value (see {@code oracle-sample.csv}).
 */
public final class EventGenerator {

    /** 2025-03-01T00:00:00Z, the event time of id 0. */
    private static final long FIRST_EVENT_SECOND = 1740787200L;

    /** Seconds between the event times of consecutive ids. */
    private static final long SECONDS_APART = 10L;

    static final String[] EVENT_TYPES = {"view", "click", "buy"};

    private EventGenerator() {}

    /** The event with this id. */
    public static Event event(long id) {
        return new Event(
                id,
                SparkHash.pmod(SparkHash.hash(id, 1), 50) + 1,
                EVENT_TYPES[SparkHash.pmod(SparkHash.hash(id, 2), 3)],
                Instant.ofEpochSecond(FIRST_EVENT_SECOND + id * SECONDS_APART),
                amount(id));
    }

    /** The events with ids {@code start .. start + n - 1}, in id order. */
    public static List<Event> events(long start, int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative: " + n);
        }
        List<Event> events = new ArrayList<>(n);
        for (long id = start; id < start + n; id++) {
            events.add(event(id));
        }
        return events;
    }

    private static double amount(long id) {
        // Spark divides the int by 100 as a double, then ROUND(double, 2) goes through the
        // decimal text of that double (Scala's BigDecimal(d)) with HALF_UP.
        return roundHalfUp(SparkHash.pmod(SparkHash.hash(id, 3), 10000) / 100.0, 2);
    }

    /** Spark's {@code round(double, scale)}. */
    static double roundHalfUp(double d, int scale) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return d;
        }
        return BigDecimal.valueOf(d).setScale(scale, RoundingMode.HALF_UP).doubleValue();
    }
}
