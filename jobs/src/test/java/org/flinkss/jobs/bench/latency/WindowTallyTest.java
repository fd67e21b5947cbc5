package org.flinkss.jobs.bench.latency;

import org.junit.jupiter.api.Test;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

class WindowTallyTest {

    /** The course's events 0..n-1 counted by window key, as win5 counts them. */
    private static Map<String, Long> windows(long n) {
        return LongStream.range(0, n)
                .mapToObj(EventGenerator::event)
                .collect(
                        Collectors.groupingBy(
                                WindowTally::key, TreeMap::new, Collectors.counting()));
    }

    @Test
    void aWindowKeyIsTheEventTypeAndTheStartOfItsFiveMinuteWindow() {
        Event first = EventGenerator.event(0); // 2025-03-01T00:00:00Z
        Event thirtieth = EventGenerator.event(30); // 00:05:00: the next window

        assertThat(WindowTally.key(first)).isEqualTo(first.eventType + "@1740787200");
        assertThat(WindowTally.key(thirtieth)).isEqualTo(thirtieth.eventType + "@1740787500");
    }

    @Test
    void theLastUpdateOfEachWindowMustCountItsEventsExactly() {
        WindowTally tally = new WindowTally();
        tally.expect(10, 80, 5_000); // 90 events: 3 windows of 30, by type
        Map<String, Long> expected = windows(90);

        // Step 1: every window's final count, each its own update, plus an earlier partial one
        // sent during the warm-up (not measured).
        String some = expected.keySet().iterator().next();
        tally.read(some, "{\"events\":1}", 4_000, 5_100);
        expected.forEach((k, n) -> tally.read(k, "{\"events\":" + n + "}", 6_000, 6_020));

        assertThat(tally.complete()).isTrue();
        OutputTally.Counts counts = tally.counts();
        assertThat(counts.read()).isEqualTo(expected.size());
        assertThat(counts.missing()).isZero();
        assertThat(counts.duplicated()).isZero();
        assertThat(counts.latency().max()).isEqualTo(20);

        // Step 2: one window counted twice over (a replayed update), another one short.
        List<String> keys = List.copyOf(expected.keySet());
        tally.read(
                keys.get(0), "{\"events\":" + (expected.get(keys.get(0)) + 2) + "}", 6_100, 6_105);
        tally.read(
                keys.get(1), "{\"events\":" + (expected.get(keys.get(1)) - 1) + "}", 6_100, 6_105);

        assertThat(tally.complete()).isFalse();
        assertThat(tally.counts().duplicated()).isEqualTo(2);
        assertThat(tally.counts().missing()).isEqualTo(1);
    }
}
