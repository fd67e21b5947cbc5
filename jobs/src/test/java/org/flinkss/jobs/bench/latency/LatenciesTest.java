package org.flinkss.jobs.bench.latency;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LatenciesTest {

    @Test
    void percentilesAreNearestRankOverWhatWasAdded() {
        Latencies latencies = new Latencies();
        // 1..100 in reverse: the order they arrive in does not matter.
        for (long ms = 100; ms >= 1; ms--) {
            latencies.add(ms);
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
            latencies.add(3);
        }
        latencies.add(900);

        assertThat(latencies.summary()).isEqualTo(new Latencies.Summary(100, 3, 3, 3, 900));
    }

    @Test
    void nothingAddedHasNoPercentiles() {
        assertThat(new Latencies().summary()).isEqualTo(new Latencies.Summary(0, -1, -1, -1, -1));
    }
}
