package org.flinkss.runtime.storage;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Lease} on the local disk, with a clock the test moves; {@code LeaseS3ITCase} (jobs) runs
 * the same on S3 with writers racing.
 */
class LeaseTest {

    static final Duration TIME = Duration.ofSeconds(60);

    @TempDir java.nio.file.Path tmp;

    /** A clock that only the test moves. */
    static final class TestClock extends Clock {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    @Test
    void aSecondRunIsRefusedNamingTheHolderUntilTheFirstReleases() throws Exception {
        Path folder = Storage.location(tmp.resolve("cp").toFile());
        TestClock clock = new TestClock();
        Lease first = Lease.acquire(folder, "run-1", TIME, clock, "host-a", 11);

        assertThatThrownBy(() -> Lease.acquire(folder, "run-2", TIME, clock, "host-b", 22))
                .isInstanceOf(Lease.HeldException.class)
                .hasMessageContaining("run run-1 of pid 11 on host-a")
                .hasMessageContaining("lease until 2026-01-01T00:01:00Z")
                .hasMessageContaining("Wait for that run to finish");

        first.close();
        Lease second = Lease.acquire(folder, "run-2", TIME, clock, "host-b", 22);
        assertThat(Lease.holderOf(folder).orElseThrow().runId()).isEqualTo("run-2");
        second.close();
    }

    @Test
    void aRenewedLeaseIsNotTakenOverButADeadHoldersExpiredLeaseIs() throws Exception {
        Path folder = Storage.location(tmp.resolve("cp").toFile());
        TestClock clock = new TestClock();
        Lease first = Lease.acquire(folder, "run-1", TIME, clock, "host-a", 11);

        // Step 1: the holder's heartbeat renews: 50 s later, and 50 s after that, still held.
        clock.now = clock.now.plusSeconds(50);
        first.renew();
        clock.now = clock.now.plusSeconds(50);
        assertThatThrownBy(() -> Lease.acquire(folder, "run-2", TIME, clock, "host-b", 22))
                .isInstanceOf(Lease.HeldException.class);

        // Step 2: the holder dies (no more renewals); once the lease expires, run-2 takes over.
        clock.now = clock.now.plusSeconds(11);
        Lease second = Lease.acquire(folder, "run-2", TIME, clock, "host-b", 22);
        assertThat(Lease.holderOf(folder).orElseThrow().host()).isEqualTo("host-b");

        // Step 3: the old holder, if it was only stalled, learns at its next renewal it lost it.
        assertThatThrownBy(first::renew)
                .isInstanceOf(Lease.HeldException.class)
                .hasMessageContaining("lost the lease")
                .hasMessageContaining("run run-2 of pid 22 on host-b");
        first.close(); // not ours any more: leaves run-2's lease alone
        assertThat(Lease.holderOf(folder).orElseThrow().released()).isFalse();
        second.close();
        assertThat(Lease.holderOf(folder).orElseThrow().released()).isTrue();
    }

    @Test
    void ofTwoRunsTakingOverOneExpiredLeaseExactlyOneWins() throws Exception {
        Path folder = Storage.location(tmp.resolve("cp").toFile());
        TestClock clock = new TestClock();
        Lease.acquire(folder, "dead", TIME, clock, "host-a", 11); // never renewed nor released
        clock.now = clock.now.plus(TIME).plusSeconds(1);

        int wins = 0;
        String refusal = null;
        for (String run : new String[] {"run-b", "run-c"}) {
            try {
                Lease.acquire(folder, run, TIME, clock, "host-" + run, 33);
                wins++;
            } catch (Lease.HeldException e) {
                refusal = e.getMessage();
            }
        }
        assertThat(wins).isEqualTo(1);
        assertThat(refusal).contains("run run-b");
    }
}
