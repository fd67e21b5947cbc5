package org.flinkss.jobs.bench.latency;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class EventTallyTest {

    @Test
    void countsMissingAndDuplicatedMeasuredEventsAndIgnoresTheWarmUp() {
        EventTally tally = new EventTally();
        // Step 1: a warm-up record, read before the measured events are known: not counted.
        tally.read("0", "{}", 1_000, 1_010);
        tally.expect(2, 4, 2_000); // ids 2, 3, 4, 5

        // Step 2: 2 and 3 once, 4 twice, 5 never; a late warm-up record (1).
        tally.read("2", "{}", 2_000, 2_007);
        tally.read("3", "{}", 2_001, 2_004);
        tally.read("4", "{}", 2_002, 2_012);
        tally.read("4", "{}", 2_002, 2_900);
        tally.read("1", "{}", 1_100, 2_500);

        OutputTally.Counts counts = tally.counts();
        assertThat(tally.complete()).isFalse();
        assertThat(counts.read()).isEqualTo(4);
        assertThat(counts.missing()).isEqualTo(1);
        assertThat(counts.duplicated()).isEqualTo(1);
        // The latency of an event is its first arrival's: 7, 3 and 10 ms, all sent in the first
        // second from the measured events' start (the warm-up's left out).
        assertThat(counts.latency()).isEqualTo(new Latencies.Summary(3, 3, 7, 10, 10));
        assertThat(counts.bySecond()).isEqualTo(Map.of(0L, new Latencies.Summary(3, 3, 7, 10, 10)));

        // Step 3: 5 arrives: complete.
        tally.read("5", "{}", 2_003, 2_008);
        assertThat(tally.complete()).isTrue();
        assertThat(tally.counts().missing()).isZero();
    }
}
