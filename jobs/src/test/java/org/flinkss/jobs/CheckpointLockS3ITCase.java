package org.flinkss.jobs;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLock;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.runner.impl.ClientHeartbeat;
import org.flinkss.runtime.storage.Lease;
import org.flinkss.runtime.storage.Storage;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The one-run-at-a-time lock of a checkpoint on S3 (S3Proxy): a lease held by the run, renewed by
 * its client's heartbeat, released at the end; a second run refused naming the holder; a dead
 * holder's lease taken over once expired, and the stalled holder told it lost it.
 */
@Tag("ports")
class CheckpointLockS3ITCase {

    private static final Duration LEASE = Duration.ofSeconds(5);

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("cplock-s3-it");

    @Test
    void aSecondRunOnAnS3BaseIsRefusedNamingTheHolderUntilTheFirstReleases() throws Exception {
        Path base = S3.server().freshPrefix("lock");
        CheckpointLayout layout = RunOptions.builder().base(base).build().checkpointOf("bronze");
        assertThat(layout.isObjectStore()).isTrue();
        assertThat(layout.location().toString()).isEqualTo(base + "/_cp/bronze");

        try (CheckpointLock first = CheckpointLock.acquire(layout, "bronze", "run-1", LEASE)) {
            assertThat(first.needsRenewal()).isTrue();
            assertThat(Lease.holderOf(layout.lease()).orElseThrow().runId()).isEqualTo("run-1");
            assertThatThrownBy(() -> CheckpointLock.acquire(layout, "bronze", "run-2", LEASE))
                    .isInstanceOf(QueryException.class)
                    .hasMessageContaining("query 'bronze' is already running on checkpoint")
                    .hasMessageContaining(layout.location().toString())
                    .hasMessageContaining("run run-1 of pid " + ProcessHandle.current().pid())
                    .hasMessageContaining("taken over once its lease expires");
        }
        // Released at the end: the next run takes it at once.
        try (CheckpointLock second = CheckpointLock.acquire(layout, "bronze", "run-2", LEASE)) {
            assertThat(Lease.holderOf(layout.lease()).orElseThrow().runId()).isEqualTo("run-2");
        }
    }

    @Test
    void theHeartbeatKeepsTheLeaseOfALiveRunPastItsLeaseTime() throws Exception {
        CheckpointLayout layout = CheckpointLayout.of(S3.server().freshPrefix("renew"), "win5");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (CheckpointLock lock = CheckpointLock.acquire(layout, "win5", "live", LEASE);
                ClientHeartbeat beat =
                        ClientHeartbeat.start(layout, "live", lock, new PrintStream(out, true))) {
            Thread.sleep(LEASE.toMillis() + 2_000);
            assertThatThrownBy(() -> CheckpointLock.acquire(layout, "win5", "next", LEASE))
                    .hasMessageContaining("run live of pid");
            // The heartbeat itself is on S3, where the job's fence reads it.
            assertThat(Storage.readText(layout.heartbeatLocation("live"))).contains(" pid ");
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        try (CheckpointLock next = CheckpointLock.acquire(layout, "win5", "next", LEASE)) {
            assertThat(Lease.holderOf(layout.lease()).orElseThrow().runId()).isEqualTo("next");
        }
    }

    @Test
    void aDeadHoldersLeaseIsTakenOverOnceExpiredAndTheStalledHolderStopsBeating() throws Exception {
        CheckpointLayout layout =
                CheckpointLayout.of(S3.server().freshPrefix("takeover"), "silver");
        // A holder that stops renewing (killed, or stalled): its lease is left as it was.
        CheckpointLock dead = CheckpointLock.acquire(layout, "silver", "dead", LEASE);
        assertThatThrownBy(() -> CheckpointLock.acquire(layout, "silver", "next", LEASE))
                .hasMessageContaining("run dead of pid");
        Thread.sleep(LEASE.toMillis() + 500);

        try (CheckpointLock next = CheckpointLock.acquire(layout, "silver", "next", LEASE)) {
            assertThat(Lease.holderOf(layout.lease()).orElseThrow().runId()).isEqualTo("next");
            // The stalled holder wakes up: its renewal says it lost the checkpoint, and its
            // heartbeat stops (so its job stops itself) with a warning.
            assertThatThrownBy(dead::renew)
                    .isInstanceOf(QueryException.class)
                    .hasMessageContaining("query 'silver' lost its checkpoint")
                    .hasMessageContaining("run next of pid");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (ClientHeartbeat beat =
                    ClientHeartbeat.start(layout, "dead", dead, new PrintStream(out, true))) {
                assertThat(out.toString(StandardCharsets.UTF_8))
                        .contains("warning: query 'silver' lost its checkpoint")
                        .contains("its job stops without heartbeats");
                assertThat(Storage.exists(layout.heartbeatLocation("dead"))).isFalse();
            }
            dead.close(); // not its lease any more: nothing released
            assertThat(Lease.holderOf(layout.lease()).orElseThrow().released()).isFalse();
        }
        assertThat(Lease.holderOf(layout.lease()).orElseThrow().released()).isTrue();
    }
}
