package org.flinkss.runtime.storage;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.flinkss.runtime.testing.S3TestServer;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The one-run-at-a-time lease of a checkpoint on S3 (S3Proxy through {@code scripts/s3}): a second
 * run is refused naming the holder; a dead holder's lease is taken over once expired, by exactly
 * one of the runs racing for it.
 */
@Tag("ports")
class LeaseS3ITCase {

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("lease-s3-it");

    @Test
    void aSecondRunOfTheQueryIsRefusedNamingTheHolder() throws Exception {
        Path checkpoint = new Path(S3.server().freshPrefix("lease"), "_cp/bronze");
        try (Lease first = Lease.acquire(checkpoint, "run-1")) {
            first.renew();
            assertThatThrownBy(() -> Lease.acquire(checkpoint, "run-2"))
                    .isInstanceOf(Lease.HeldException.class)
                    .hasMessageContaining(checkpoint.toString())
                    .hasMessageContaining("run run-1 of pid " + ProcessHandle.current().pid())
                    .hasMessageContaining("Wait for that run to finish");
        }
        try (Lease second = Lease.acquire(checkpoint, "run-2")) {
            assertThat(Lease.holderOf(checkpoint).orElseThrow().runId()).isEqualTo("run-2");
        }
    }

    @Test
    void ofRunsRacingToTakeOverADeadHoldersExpiredLeaseExactlyOneWins() throws Exception {
        Duration time = Duration.ofMillis(500);
        for (int round = 0; round < 5; round++) {
            Path checkpoint = new Path(S3.server().freshPrefix("takeover"), "_cp/win5");
            // A holder that dies: never renews, never releases.
            Lease.acquire(checkpoint, "dead", time, Clock.systemUTC(), "host-dead", 1);
            Thread.sleep(time.toMillis() + 100);

            int takers = 6;
            ExecutorService pool = Executors.newFixedThreadPool(takers);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Boolean>> results = new ArrayList<>();
                for (int t = 0; t < takers; t++) {
                    String run = "taker-" + t;
                    results.add(
                            pool.submit(
                                    () -> {
                                        go.await();
                                        try {
                                            Lease.acquire(
                                                    checkpoint,
                                                    run,
                                                    Duration.ofMinutes(1),
                                                    Clock.systemUTC(),
                                                    "host-" + run,
                                                    2);
                                            return true;
                                        } catch (Lease.HeldException e) {
                                            return false;
                                        }
                                    }));
                }
                go.countDown();
                List<Integer> winners = new ArrayList<>();
                for (int t = 0; t < takers; t++) {
                    if (results.get(t).get()) {
                        winners.add(t);
                    }
                }
                assertThat(winners).as("takers that got the lease, round %d", round).hasSize(1);
                assertThat(Lease.holderOf(checkpoint).orElseThrow().runId())
                        .isEqualTo("taker-" + winners.get(0));
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
