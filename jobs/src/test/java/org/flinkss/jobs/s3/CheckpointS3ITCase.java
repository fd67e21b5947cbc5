package org.flinkss.jobs.s3;

import org.apache.flink.core.fs.Path;
import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.QueryException;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLock;
import org.flinkss.runtime.checkpoint.CheckpointLog;
import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.checkpoint.IdentityStore;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.RunFence;
import org.flinkss.runtime.checkpoint.RunRecords;
import org.flinkss.runtime.checkpoint.SealedBatch;
import org.flinkss.runtime.checkpoint.SkippedCommit;
import org.flinkss.runtime.progress.RunScope;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.runner.impl.ClientHeartbeat;
import org.flinkss.runtime.storage.Lease;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.S3TestServer;
import org.flinkss.testutils.MiniClusters;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A query's checkpoint on S3 (S3Proxy, one server for the class):
 *
 * <ul>
 *   <li>its lock is a lease, held by the run, renewed by its client's heartbeat, released at the
 *       end; a second run is refused naming the holder; a dead holder's lease is taken over once
 *       expired, and the stalled holder told it lost it;
 *   <li>its small files (fence, run records and markers, sealed batches, commit reports, identity)
 *       are written, read and cleared through {@link Storage};
 *   <li>{@code --base s3://flinkss/<prefix>}: {@code progress}, {@code report} and {@code reset}
 *       read and write the checkpoint on S3 and its tables in {@code <base>/warehouse} on S3; a run
 *       on an S3 base with nothing landed is refused naming the landing prefix (runs on an S3 base:
 *       {@link RunS3ITCase}). That checkpoint is a real run's: bronze runs with a local base and
 *       its tables in the S3 base's warehouse, then its identity and progress are copied to {@code
 *       <s3 base>/_cp/bronze}.
 * </ul>
 */
@Tag("ports")
class CheckpointS3ITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("checkpoint-s3-it");

    private static final Duration LEASE = Duration.ofSeconds(5);

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
            assertThat(Storage.readText(layout.heartbeat("live"))).contains(" pid ");
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
                assertThat(Storage.exists(layout.heartbeat("dead"))).isFalse();
            }
            dead.close(); // not its lease any more: nothing released
            assertThat(Lease.holderOf(layout.lease()).orElseThrow().released()).isFalse();
        }
        assertThat(Lease.holderOf(layout.lease()).orElseThrow().released()).isTrue();
    }

    @Test
    void theRunFilesOfACheckpointOnS3AreWrittenReadAndCleared() throws Exception {
        Path base = S3.server().freshPrefix("files");
        CheckpointLayout layout = CheckpointLayout.of(base, "win5");
        RunScope scope = new RunScope(layout, "run-1", Duration.ofSeconds(60));

        // The fence names the run that owns the directory.
        assertThat(RunFence.owner(layout)).isEmpty();
        RunFence.claim(layout, "run-1");
        assertThat(RunFence.owner(layout)).contains("run-1");
        assertThat(scope.fence().reasonToStop()).isEmpty();
        RunFence.claim(layout, "run-2");
        assertThat(scope.fence().reasonToStop().orElseThrow())
                .contains("run run-1 of checkpoint " + layout.location(), "is fenced");

        // The records of runs: the job, the caught-up markers, the checkpoint wanted.
        RunRecords runs = new RunRecords(layout);
        runs.recordJob("run-1", "job-a", null, Duration.ofSeconds(60));
        runs.recordJob("run-2", "job-b", null, null);
        assertThat(runs.jobs()).extracting(RunRecords.Job::jobId).containsExactly("job-a", "job-b");
        assertThat(runs.jobOf("run-2")).contains("job-b");
        assertThat(runs.caughtUp("run-1", List.of("events"))).isFalse();
        JsonFiles.touch(scope.caughtUpMarker("events"));
        assertThat(runs.caughtUp("run-1", List.of("events"))).isTrue();
        assertThat(runs.checkpointWanted("run-1", List.of("events")))
                .isEqualTo(RunRecords.NO_CHECKPOINT_WANTED);
        JsonFiles.write(scope.checkpointWanted("events"), 7L);
        assertThat(runs.checkpointWanted("run-1", List.of("events"))).isEqualTo(7);

        // Sealed batches: written per checkpoint, the older ones forgotten.
        CheckpointLog<Long, SealedBatch> sealed = scope.sealedBatches("events");
        for (long chk = 1; chk <= 3; chk++) {
            sealed.add(chk, new SealedBatch("events", chk, chk * 10));
        }
        sealed.purgeBefore(3L);
        assertThat(sealed.get(1L)).isEmpty();
        assertThat(sealed.keys()).containsExactly(3L);
        assertThat(sealed.latest().orElseThrow().lastSealed()).isEqualTo(30);

        // Commit reports, by batch then table; cleared.
        CheckpointLog<String, SkippedCommit> skipped = scope.skippedCommits();
        for (SkippedCommit s :
                List.of(
                        new SkippedCommit("events_5min_late", 4, 4),
                        new SkippedCommit("events_5min", 4, 4),
                        new SkippedCommit("events_5min", 2, 4))) {
            skipped.add(s.key(), s);
        }
        assertThat(SkippedCommit.readAll(layout, "run-1"))
                .extracting(c -> c.table() + "@" + c.batchId())
                .containsExactly("events_5min@2", "events_5min@4", "events_5min_late@4");
        SkippedCommit.clearAll(layout);
        assertThat(SkippedCommit.readAll(layout, "run-1")).isEmpty();

        runs.clear();
        assertThat(runs.jobs()).isEmpty();
        assertThat(Storage.list(layout.runs())).isEmpty();

        // The identity a reset writes, and what a reset deletes.
        String id = new IdentityStore(layout).renew("win5");
        assertThat(JsonFiles.readTree(layout.metadata()).path("id").asText()).isEqualTo(id);
        new IdentityStore(layout).checkLayout("win5");
        for (Path part : layout.resetParts()) {
            Folders.deleteQuietly(part);
        }
        assertThat(Storage.exists(layout.metadata())).isFalse();
        assertThat(Storage.exists(layout.fence())).isTrue(); // not a run's output
    }

    @TempDir java.nio.file.Path dir;

    private static CliOutput cli(String... args) {
        return CliOutput.of(args);
    }

    private static CliOutput ok(String... args) {
        CliOutput o = cli(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    private static CliOutput refused(String... args) {
        CliOutput o = cli(args);
        assertThat(o.code()).as("%s: %s", List.of(args), o.out()).isNotZero();
        assertThat(o.err()).as("%s", List.of(args)).startsWith("error: ").doesNotContain("\tat ");
        return o;
    }

    @Test
    void progressReportAndResetWorkOnACheckpointOnS3() throws Exception {
        Path base = S3.server().freshPrefix("base");
        String warehouse = base + "/warehouse";
        java.nio.file.Path local = dir.resolve("local-base");
        ok("land-events", "--batch", "1", "--start", "0", "--base", local.toString());
        ok("run", "bronze", "--quiet", "--base", local.toString(), "--warehouse", warehouse);

        // The run's checkpoint identity and progress, moved to the S3 base.
        CheckpointLayout onS3 = CheckpointLayout.of(base, "bronze");
        CheckpointLayout onDisk = CheckpointLayout.of(Storage.location(local.toFile()), "bronze");
        for (String file : List.of("metadata.json", "progress/log.jsonl", "progress/last.json")) {
            Storage.replace(
                    new Path(onS3.location(), file),
                    Files.readAllBytes(
                            Storage.localFile(onDisk.location(), "a test file")
                                    .toPath()
                                    .resolve(file)));
        }
        String queryId = JsonFiles.readTree(onS3.metadata()).path("id").asText();
        Warehouse tables = new Warehouse(Storage.location(warehouse));
        assertThat(tables.count("events_bronze")).isEqualTo(500);

        // progress and report read the S3 checkpoint.
        JsonNode last =
                JsonFiles.JSON.readTree(ok("progress", "bronze", "--base", base.toString()).out());
        assertThat(last.path("id").asText()).isEqualTo(queryId);
        assertThat(last.path("numInputRows").asLong()).isEqualTo(500);
        java.nio.file.Path report = dir.resolve("report.html");
        ok("report", "--base", base.toString(), "--out", report.toString());
        assertThat(Files.readString(report)).contains("<h3>bronze</h3>", base.toString());
        ok("report", "--base", base.toString());
        assertThat(Storage.readText(new Path(base, "report.html"))).contains("<h3>bronze</h3>");

        // reset waits for a run that holds the checkpoint's lease, naming it.
        try (CheckpointLock run =
                CheckpointLock.acquire(onS3, "bronze", "other-run", Duration.ofMinutes(1))) {
            assertThat(refused("reset", "bronze", "--base", base.toString()).err())
                    .contains("query 'bronze' is already running", "run other-run of pid");
        }

        // reset: the checkpoint starts over (a new id, no progress), the S3 table is emptied.
        assertThat(ok("reset", "bronze", "--base", base.toString()).out())
                .contains("bronze: checkpoint deleted, tables emptied: events_bronze");
        assertThat(tables.count("events_bronze")).isZero();
        JsonNode renewed = JsonFiles.readTree(onS3.metadata());
        assertThat(renewed.path("id").asText()).isNotEmpty().isNotEqualTo(queryId);
        assertThat(Storage.exists(onS3.progressLog())).isFalse();
        assertThat(tables.owner("events_bronze").queryId()).isEqualTo(renewed.path("id").asText());
        assertThat(tables.owner("events_bronze").checkpoint())
                .isEqualTo(onS3.location().toString());
        // The local checkpoint is not touched.
        assertThat(Storage.localFile(onDisk.metadata(), "a test file").toPath()).exists();

        // A run of a query reading the landing prefix, on an S3 base with nothing landed, is
        // refused naming the prefix; the table commands read the S3 base's warehouse.
        String empty = S3.server().freshPrefix("nothing-landed").toString();
        assertThat(refused("run", "bronze", "--quiet", "--base", empty).err())
                .contains(empty + "/events holds nothing: land events first");
        assertThat(ok("table", "count", "events_bronze", "--base", base.toString()).out().trim())
                .isEqualTo("0");
        assertThat(refused("report", "--base", S3.server().freshPrefix("empty").toString()).err())
                .contains("holds nothing");
    }
}
