package org.flinkss.jobs;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.table.Warehouse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 16: the project's queries on a cluster of three TaskManagers, one of which dies. {@code
 * scripts/cluster start --taskmanagers 3} (2 slots each), bronze submitted with {@code flink run
 * ... run bronze --parallelism 4} over 60 landed files in batches of 6 files; once some batches are
 * committed one TaskManager is killed with SIGKILL ({@code scripts/cluster kill-taskmanager 1}, as
 * a crashed machine), and the run must finish on the four slots left. Then win5, also at
 * parallelism 4, on the survivors. Both tables must equal those of an uninterrupted embedded run of
 * the same queries on the same files: nothing lost, nothing twice.
 *
 * <p>Ports are picked free and the installation lives under {@code jobs/target/multi-tm-it}, so
 * nothing here collides with a cluster of the user's; {@code -DexcludedGroups=ports,docker} skips
 * it.
 */
@Tag("ports")
class MultiTaskManagerITCase {

    private static final Path WORK = ProjectScripts.ROOT.resolve("jobs/target/multi-tm-it");
    private static final Path CLUSTER_JAR =
            ProjectScripts.ROOT.resolve("jobs/target/flinkss-jobs-cluster.jar");
    private static final int FILES = 60;
    private static final int EVENTS_PER_FILE = 2_000;
    private static final String FILES_PER_BATCH = "6";
    private static final String WIN5_TABLE = "events_5min";

    private static ProjectScripts scripts;
    private static String master;
    private static String skipped;
    private static boolean started;
    private static Thread stopOnExit;

    @BeforeAll
    static void startCluster() throws IOException {
        if (!ProjectScripts.onPath("curl")) {
            skipped =
                    "MultiTaskManagerITCase skipped: scripts/cluster needs curl (apt-get install"
                            + " curl; .ci/run installs it).";
            return;
        }
        assertThat(CLUSTER_JAR)
                .as("the cluster jar (this test runs in failsafe, after package)")
                .isRegularFile();
        Folders.deleteRecursively(WORK);
        Files.createDirectories(WORK);
        int restPort = ProjectScripts.freePort();
        int rpcPort = ProjectScripts.freePort();
        master = "127.0.0.1:" + restPort;
        scripts =
                new ProjectScripts(WORK, "MultiTaskManagerITCase")
                        .env("FLINK_HOME", WORK.resolve("flink").toString());
        started = true;
        stopOnExit = new Thread(MultiTaskManagerITCase::stopAll, "MultiTaskManagerITCase-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        ProjectScripts.Result start =
                scripts.script(
                        Duration.ofMinutes(6),
                        "cluster",
                        "start",
                        "--taskmanagers",
                        "3",
                        "--rest-port",
                        String.valueOf(restPort),
                        "--rpc-port",
                        String.valueOf(rpcPort),
                        "--data-dir",
                        WORK.resolve("flink-data").toString());
        start.assertSuccess("scripts/cluster start --taskmanagers 3");
        assertThat(start.output()).contains("3 TaskManager(s), 6 slots");
    }

    @BeforeEach
    void skipWithoutCurl() {
        assumeTrue(skipped == null, skipped);
    }

    @AfterAll
    static void stopCluster() {
        if (stopOnExit != null) {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        }
        stopAll();
    }

    private static void stopAll() {
        if (!started) {
            return;
        }
        started = false;
        scripts.script(Duration.ofMinutes(2), "cluster", "stop");
    }

    @Test
    void bronzeAndWin5AtParallelism4SurviveAKilledTaskManagerExactly() throws Exception {
        Path base = WORK.resolve("cluster-base");
        Path reference = WORK.resolve("reference-base");
        for (Path b : List.of(base, reference)) {
            for (int file = 0; file < FILES; file++) {
                EventFiles.writeBatch(
                        b.resolve("events"),
                        file + 1,
                        EventGenerator.events((long) file * EVENTS_PER_FILE, EVENTS_PER_FILE));
            }
        }
        long events = (long) FILES * EVENTS_PER_FILE;

        // The uninterrupted reference: the same queries, embedded, in this JVM.
        // win5 reads bronze's table in one batch: how bronze's versions split its files differs
        // between runs (a restart re-plans), and with it win5's batches and watermarks would.
        assertThat(Main.execute(runArgs(reference, "bronze", true)))
                .as("embedded reference run of bronze")
                .isZero();
        assertThat(Main.execute(runArgs(reference, "win5", false)))
                .as("embedded reference run of win5")
                .isZero();
        Warehouse expected = new Warehouse(reference.resolve("warehouse"));
        assertThat(expected.count(BronzeQuery.TABLE)).isEqualTo(events);

        // Bronze on the cluster; a TaskManager dies once a few batches are committed.
        Warehouse actual = new Warehouse(base.resolve("warehouse"));
        Path bronzeLog = WORK.resolve("bronze-client.log");
        Process bronze =
                scripts.builder(flinkRun(base, "bronze", true))
                        .redirectOutput(bronzeLog.toFile())
                        .start();
        ProjectScripts.await(
                "2 of 10 bronze batches committed on the cluster",
                () -> {
                    assertThat(bronze.isAlive())
                            .as(
                                    "the bronze client ended early:\n%s",
                                    ProjectScripts.read(bronzeLog))
                            .isTrue();
                    return actual.exists(BronzeQuery.TABLE)
                            && actual.count(BronzeQuery.TABLE) >= 2L * 6 * EVENTS_PER_FILE;
                },
                Duration.ofMinutes(4));
        long committedAtKill = actual.count(BronzeQuery.TABLE);
        scripts.script(Duration.ofMinutes(1), "cluster", "kill-taskmanager", "1")
                .assertSuccess("kill-taskmanager 1");
        long killed = System.nanoTime();
        assertThat(bronze.waitFor(8, TimeUnit.MINUTES))
                .as("the bronze client ended within 8 minutes of the kill")
                .isTrue();
        String bronzeOutput = ProjectScripts.read(bronzeLog);
        scripts.log(
                String.format(
                        "bronze: %d rows committed at the kill; finished %.1f s after it",
                        committedAtKill, (System.nanoTime() - killed) / 1e9));
        assertThat(bronze.exitValue()).as(bronzeOutput).isZero();
        assertThat(committedAtKill).as("the kill came before the end").isLessThan(events);
        assertThat(bronzeOutput)
                .contains(events + " rows read")
                .as("the restart is noted in one line, with no stack trace")
                .contains("query 'bronze': the job restarts from its last checkpoint after a")
                .doesNotContain("\tat ");
        ProjectScripts.Result status = scripts.script(Duration.ofMinutes(1), "cluster", "status");
        assertThat(status.output())
                .as("one TaskManager dead, two left")
                .contains("taskmanager-1: NOT running")
                .contains("taskmanager-2: running")
                .contains("taskmanager-3: running");

        // win5 on the two TaskManagers left (their four slots).
        ProjectScripts.Result win5 =
                scripts.run(Duration.ofMinutes(6), flinkRun(base, "win5", false));
        win5.assertSuccess("flink run ... run win5");

        assertThat(actual.sortedValues(BronzeQuery.TABLE))
                .as("events_bronze after a killed TaskManager, against an uninterrupted run")
                .hasSize((int) events)
                .isEqualTo(expected.sortedValues(BronzeQuery.TABLE));
        assertThat(actual.sortedValues(WIN5_TABLE))
                .as("events_5min on the surviving TaskManagers, against an uninterrupted run")
                .isNotEmpty()
                .isEqualTo(expected.sortedValues(WIN5_TABLE));
    }

    private static String[] flinkRun(Path base, String query, boolean batchesOfSixFiles) {
        List<String> command =
                new ArrayList<>(
                        List.of(
                                ProjectScripts.ROOT.resolve("scripts/flink").toString(),
                                "run",
                                "-m",
                                master,
                                CLUSTER_JAR.toString()));
        command.addAll(List.of(runArgs(base, query, batchesOfSixFiles)));
        return command.toArray(String[]::new);
    }

    private static String[] runArgs(Path base, String query, boolean batchesOfSixFiles) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "run",
                                query,
                                "--base",
                                base.toString(),
                                "--parallelism",
                                "4",
                                "--quiet"));
        if (batchesOfSixFiles) {
            args.addAll(List.of("--max-files-per-trigger", FILES_PER_BATCH));
        }
        return args.toArray(String[]::new);
    }
}
