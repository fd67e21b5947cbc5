package org.flinkss.jobs.bench.latency;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class LatenciesTest {

    @Test
    void percentilesAreNearestRankOverWhatWasAdded() {
        Latencies latencies = new Latencies();
        // 1..100 in reverse: the order they arrive in does not matter.
        for (long ms = 100; ms >= 1; ms--) {
            latencies.add(1_000, ms);
        }

        Latencies.Summary s = latencies.summary();

        assertThat(s.count()).isEqualTo(100);
        assertThat(s.min()).isEqualTo(1);
        assertThat(s.p50()).isEqualTo(50);
        assertThat(s.p99()).isEqualTo(99);
        assertThat(s.max()).isEqualTo(100);
    }

    @Test
    void oneSlowRecordInAHundredIsTheMaxNotTheP99() {
        Latencies latencies = new Latencies();
        for (int i = 0; i < 99; i++) {
            latencies.add(1_000, 3);
        }
        latencies.add(1_000, 900);

        assertThat(latencies.summary()).isEqualTo(new Latencies.Summary(100, 3, 3, 3, 900));
    }

    @Test
    void bySecondSummarizesEachSecondOfSendTimeFromTheFirstMeasured() {
        Latencies latencies = new Latencies();
        latencies.add(9_999, 7_000); // sent before the measured ones: left out
        // Second 0 (sent 10,000-10,999): 1..100 ms; second 2: one record of 40 ms.
        for (int i = 0; i < 100; i++) {
            latencies.add(10_000 + 10 * i, 100 - i);
        }
        latencies.add(12_500, 40);

        Map<Long, Latencies.Summary> bySecond = latencies.bySecond(10_000);

        assertThat(bySecond)
                .containsExactly(
                        Map.entry(0L, new Latencies.Summary(100, 1, 50, 99, 100)),
                        Map.entry(2L, new Latencies.Summary(1, 40, 40, 40, 40)));
        assertThat(latencies.summary().max()).isEqualTo(7_000);
    }

    @Test
    void nothingAddedHasNoPercentiles() {
        assertThat(new Latencies().summary()).isEqualTo(new Latencies.Summary(0, -1, -1, -1, -1));
    }
}
