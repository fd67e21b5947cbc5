package org.flinkss.jobs.s3;

import org.apache.flink.core.fs.Path;
import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.checkpoint.CheckpointLock;
import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.checkpoint.RestorePoints;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.runtime.testing.RunFreeRows;
import org.flinkss.runtime.testing.S3TestServer;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code run} with {@code --base s3://flinkss/<prefix>} (S3Proxy): landing prefix, checkpoints,
 * savepoints and tables ({@code <base>/warehouse}) all on S3. The course scenario (500 events,
 * bronze, win5, a recompute of win5's closed windows, 500 more, bronze again, then the pipeline)
 * gives the tables of the same commands on a local base, row for row; each bronze run restores the
 * previous one's savepoint from S3 (500 then 1000 rows, none twice); a second run while another
 * holds the checkpoint's lease is refused naming the holder.
 */
@Tag("ports")
class RunS3ITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("run-s3-it");

    @TempDir java.nio.file.Path dir;

    private static CliOutput cli(String... args) {
        return CliOutput.of(args);
    }

    private static CliOutput ok(String... args) {
        CliOutput o = cli(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    @Test
    void theCourseScenarioOnAnS3BaseEqualsTheSameRunsOnALocalBase() throws Exception {
        String remote = S3.server().freshPrefix("course").toString();
        String local = dir.resolve("local-base").toString();
        Warehouse onS3 = new Warehouse(Storage.location(remote + "/warehouse"));
        Warehouse onDisk =
                new Warehouse(Storage.location(java.nio.file.Path.of(local, "warehouse").toFile()));

        // Step 1: the same commands on both bases, a recompute of win5's closed windows among
        // them (under the checkpoint's lease on S3, one Delta commit on the S3 table).
        List<String> recomputed = new ArrayList<>();
        List<String> openWindows = new ArrayList<>();
        for (String base : List.of(remote, local)) {
            Warehouse tables = base.equals(remote) ? onS3 : onDisk;
            ok("land-events", "--batch", "1", "--start", "0", "--base", base);
            ok("run", "bronze", "--quiet", "--base", base);
            assertThat(tables.count("events_bronze")).as(base).isEqualTo(500);
            ok("run", "win5", "--quiet", "--base", base);
            // win5's open windows, read from its savepoint on either storage (State Processor
            // API through Flink's FileSystem).
            openWindows.add(ok("state", "export", "win5", "--csv", "--base", base).out());
            long version = tables.delta("events_5min").snapshot().version();
            String out =
                    ok(
                                    "recompute",
                                    "events_5min",
                                    "--from",
                                    "2025-03-01T00:00:00Z",
                                    "--to",
                                    "2025-03-01T01:00:00Z",
                                    "--base",
                                    base)
                            .out();
            assertThat(out).as(base).endsWith(" in warehouse " + tables.where() + "\n");
            recomputed.add(out.substring(0, out.indexOf(" in warehouse ")));
            assertThat(tables.delta("events_5min").snapshot().version())
                    .as("the recompute's commit")
                    .isEqualTo(version + 1);
            ok("land-events", "--batch", "2", "--start", "500", "--base", base);
            ok("run", "bronze", "--quiet", "--base", base);
            assertThat(tables.count("events_bronze")).as(base).isEqualTo(1000);
            // The table commands read <base>/warehouse on either storage, no --warehouse needed.
            assertThat(ok("table", "count", "events_bronze", "--base", base).out().trim())
                    .as(base)
                    .isEqualTo("1000");
        }
        assertThat(recomputed.get(0))
                .as("the closed windows replaced by as many, the same on both bases")
                .matches(
                        "events_5min: replaced ([1-9]\\d*) rows with \\1 recomputed rows for"
                                + " windows in \\[.*\\)")
                .isEqualTo(recomputed.get(1));
        assertThat(ok("table", "export", "events_5min", "--csv", "--base", remote).out())
                .isEqualTo(ok("table", "export", "events_5min", "--csv", "--base", local).out());
        assertThat(openWindows.get(0))
                .as("state export win5 on S3: the open windows, as on the local base")
                .startsWith("window_start,window_end,event_type,events,amount\n")
                .isEqualTo(openWindows.get(1))
                .satisfies(t -> assertThat(t.lines().count()).as("open windows").isGreaterThan(1));

        // Step 2: every table on S3 equals the local one, row for row.
        assertThat(onS3.tables())
                .contains("events_5min", "events_bronze")
                .isEqualTo(onDisk.tables());
        for (String table : onDisk.tables()) {
            assertThat(RunFreeRows.of(onS3, table))
                    .as(table)
                    .isEqualTo(RunFreeRows.of(onDisk, table));
        }

        // Step 3: the checkpoint is on S3: the second bronze run read the 500 new events only,
        // and ended with a savepoint under <base>/_cp/bronze/savepoints, the one restore point.
        CheckpointLayout bronze = CheckpointLayout.of(Storage.location(remote), "bronze");
        assertThat(bronze.isObjectStore()).isTrue();
        JsonNode last = JsonFiles.JSON.readTree(ok("progress", "bronze", "--base", remote).out());
        assertThat(last.path("numInputRows").asLong()).isEqualTo(500);
        List<Path> points = new RestorePoints(bronze).all();
        assertThat(points).hasSize(1);
        assertThat(points.get(0).toString()).startsWith(bronze.savepoints() + "/savepoint-");

        // Step 4: a second run while another holds the checkpoint's lease is refused, naming the
        // holder; once released, a run finds nothing new.
        try (CheckpointLock held =
                CheckpointLock.acquire(bronze, "bronze", "other-run", Duration.ofMinutes(1))) {
            CliOutput refused = cli("run", "bronze", "--quiet", "--base", remote);
            assertThat(refused.code()).isNotZero();
            assertThat(refused.err())
                    .contains(
                            "query 'bronze' is already running on checkpoint " + bronze.location(),
                            "run other-run of pid " + ProcessHandle.current().pid())
                    .doesNotContain("\tat ");
        }
        ok("run", "bronze", "--quiet", "--base", remote);
        assertThat(onS3.count("events_bronze")).isEqualTo(1000);

        // Step 5: the pipeline on both bases (its bronze finds nothing new, then silver and gold):
        // every table on S3 still equals the local one.
        for (String base : List.of(remote, local)) {
            ok("run", "pipeline", "--quiet", "--base", base);
        }
        assertThat(onS3.tables())
                .contains("events_silver", "events_by_type")
                .isEqualTo(onDisk.tables());
        for (String table : onDisk.tables()) {
            assertThat(RunFreeRows.of(onS3, table))
                    .as(table)
                    .isEqualTo(RunFreeRows.of(onDisk, table));
        }
        assertThat(onS3.count("events_by_type")).isPositive();
    }

    /**
     * Bronze on an S3 base killed with SIGKILL after a batch of its own committed, then rerun (in a
     * JVM of its own, {@link S3BronzeChild}, with a 5 s lease the rerun takes over): the S3 table
     * holds the rows of one uninterrupted local run, each event once, and the progress log counts
     * every event once.
     */
    @Test
    void bronzeKilledMidRunOnAnS3BaseEndsWithTheRowsOfOneUninterruptedRun() throws Exception {
        String remote = S3.server().freshPrefix("kill").toString();
        String local = dir.resolve("kill-local").toString();
        for (int file = 0; file < 8; file++) {
            for (String base : List.of(remote, local)) {
                ok(
                        "land-events",
                        "--batch",
                        "" + (file + 1),
                        "--start",
                        "" + file * 500,
                        "--base",
                        base);
            }
        }
        ok("run", "bronze", "--quiet", "--base", local);
        List<List<Object>> expected =
                new Warehouse(Storage.location(java.nio.file.Path.of(local, "warehouse").toFile()))
                        .sortedValues("events_bronze");
        assertThat(expected).hasSize(4000);

        CheckpointLayout bronze = CheckpointLayout.of(Storage.location(remote), "bronze");
        Warehouse onS3 = new Warehouse(Storage.location(remote + "/warehouse"));
        List<java.nio.file.Path> outputs = new ArrayList<>();
        int kills;
        try {
            kills =
                    ChildJvm.runKilledAfterCommits(
                            ChildJvm.of(S3BronzeChild.class)
                                    .workDir(dir.resolve("child"))
                                    .tmpDir(dir.resolve("child-tmp")),
                            new String[] {S3.server().endpoint(), remote},
                            bronze,
                            1,
                            new Random(20261201L),
                            800,
                            // Per run: to its next commit, or to its end. A child on S3 took 69 s
                            // to its first commit in a CI run while the Docker images were built
                            // beside it, and so missed 90 s to its end; a hang still fails.
                            Duration.ofMinutes(4),
                            dir.resolve("logs"),
                            outputs,
                            System.out::println,
                            () -> onS3.count("events_bronze") + " rows visible in the table");
        } catch (Throwable failure) {
            for (java.nio.file.Path output : outputs) {
                System.out.println("===== " + output.getFileName() + " =====");
                System.out.println(Files.exists(output) ? Files.readString(output) : "(no output)");
            }
            throw failure;
        }
        assertThat(kills).as("kills that hit a running process").isEqualTo(1);

        assertThat(onS3.sortedValues("events_bronze")).isEqualTo(expected);
        long read =
                ProgressTracker.history(bronze).stream()
                        .mapToLong(p -> p.path("numInputRows").asLong())
                        .sum();
        assertThat(read).as("rows of every committed batch, each read once").isEqualTo(4000);
    }
}
