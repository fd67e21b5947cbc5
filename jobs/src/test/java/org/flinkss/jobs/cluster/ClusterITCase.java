package org.flinkss.jobs.cluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.jobs.userquery.ExampleJar;
import org.flinkss.jobs.userquery.UserJarITCase;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.storage.impl.LocalDisk;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.ClusterInstallationLock;
import org.flinkss.testutils.ProjectScripts;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The jobs on a real Flink cluster: {@code scripts/cluster start} (a JobManager and a TaskManager
 * as separate JVMs), submissions with {@code scripts/flink run} of {@code
 * jobs/target/flinkss-jobs-cluster.jar}, {@code scripts/flink stop --savepointPath} and {@code run
 * -s}, then {@code scripts/cluster stop}, whatever happened.
 *
 * <p>It needs ports 8081 and 6123 (the cluster's REST API and RPC) and skips itself, saying so,
 * when something else holds them; {@code -DexcludedGroups=ports,docker} skips it outright. It runs
 * in failsafe after {@code package}, which builds the two jars it uses.
 */
@Tag("ports")
// Beside the other integration tests (the pom's failsafe execution), and one at a time with
// DocPortsCommandsITCase: scripts/cluster has one installation (ClusterInstallationLock).
@Tag("cluster")
class ClusterITCase {

    private static final int REST_PORT = 8081;
    private static final int RPC_PORT = 6123;
    private static final String MASTER = "127.0.0.1:" + REST_PORT;
    // Upper bounds for a machine running this beside the docker-compose test and other ITCases on
    // 2 cores, where a client took 2 min 45 s to submit its job (MultiTaskManagerITCase); a quiet
    // machine takes seconds.
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(6);
    private static final Duration AWAIT = Duration.ofMinutes(6);
    private static final Pattern JOB_ID =
            Pattern.compile("Job has been submitted with JobID ([0-9a-f]{32})");
    private static final Pattern SAVEPOINT = Pattern.compile("Savepoint completed\\. Path: (\\S+)");

    private static final Path ROOT = projectRoot();
    private static final Path WORK = ROOT.resolve("jobs/target/cluster-it");
    private static final Path CLUSTER_JAR = ROOT.resolve("jobs/target/flinkss-jobs-cluster.jar");
    private static final Path RUNNABLE_JAR = ROOT.resolve("jobs/target/flinkss-jobs.jar");

    private static final long START = System.nanoTime();
    private static final List<Process> CLIENTS = new ArrayList<>();
    private static volatile boolean clusterStarted;
    private static Thread stopOnExit;
    private static int commands;
    private static String skipped;
    private static ClusterInstallationLock installation;

    @BeforeAll
    static void startCluster() throws IOException {
        installation = ClusterInstallationLock.acquire("ClusterITCase");
        String taken =
                taken(REST_PORT, "the Flink REST API") + taken(RPC_PORT, "the JobManager RPC");
        if (!onPath("curl")) {
            skipped =
                    "ClusterITCase skipped: scripts/cluster needs curl to poll Flink's REST API"
                            + " (apt-get install curl; .ci/run installs it).";
            System.err.println(skipped);
            return;
        }
        if (!taken.isEmpty()) {
            skipped =
                    "ClusterITCase skipped:"
                            + taken
                            + " Stop what holds them (scripts/cluster stop, if it is a cluster of"
                            + " yours), or skip this test with -DexcludedGroups=ports,docker.";
            System.err.println(skipped);
            return;
        }
        assertTrue(
                Files.isRegularFile(CLUSTER_JAR) && Files.isRegularFile(RUNNABLE_JAR),
                "the jars are missing: run 'mvn package' first (this test runs in failsafe, after"
                        + " package): "
                        + CLUSTER_JAR);
        LocalDisk.deleteRecursively(WORK);
        Files.createDirectories(WORK);
        // From here on the cluster may be up: stop it on every way out, a killed test JVM included.
        clusterStarted = true;
        stopOnExit = new Thread(ClusterITCase::stopClusterQuietly, "ClusterITCase-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        Result start =
                command(
                        Duration.ofMinutes(8),
                        ROOT.resolve("scripts/cluster").toString(),
                        "start",
                        "--data-dir",
                        WORK.resolve("flink-data").toString());
        assertThat(start.code).as("scripts/cluster start\n%s", start.output).isZero();
        log(
                "cluster up: "
                        + start.output
                                .lines()
                                .filter(l -> l.startsWith("Flink cluster up"))
                                .findFirst()
                                .orElse(""));
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Paths.get(dir, command))) {
                return true;
            }
        }
        return false;
    }

    @BeforeEach
    void skipWithoutPorts() {
        // Here and not in @BeforeAll, so that each test is reported as skipped, with the reason.
        assumeTrue(skipped == null, skipped);
    }

    @AfterAll
    static void stopCluster() throws IOException {
        try (ClusterInstallationLock held = installation) {
            for (Process client : CLIENTS) {
                client.destroyForcibly();
            }
            if (clusterStarted) {
                Result stop = stopClusterQuietly();
                if (stopOnExit != null) {
                    Runtime.getRuntime().removeShutdownHook(stopOnExit);
                }
                log("cluster stopped (exit " + stop.code + ")");
                assertThat(stop.code).as("scripts/cluster stop\n%s", stop.output).isZero();
            }
        }
    }

    private static Result stopClusterQuietly() {
        if (!clusterStarted) {
            return new Result(0, "");
        }
        clusterStarted = false;
        try {
            return command(
                    Duration.ofMinutes(2), ROOT.resolve("scripts/cluster").toString(), "stop");
        } catch (RuntimeException e) {
            return new Result(-1, e.toString());
        }
    }

    /**
     * The course's first steps, submitted with flink run: the second submission continues from the
     * first's savepoint.
     */
    @Test
    void availableNowRunsOnTheClusterContinueFromTheQuerysCheckpoint() {
        Path base = WORK.resolve("available-now");
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));

        // Land batch 1 the way a user does, with the runnable jar.
        Result land =
                command(
                        COMMAND_TIMEOUT,
                        ChildJvm.javaExecutable(),
                        "-Djava.io.tmpdir=" + WORK.resolve("tmp"),
                        "-jar",
                        RUNNABLE_JAR.toString(),
                        "land-events",
                        "--base",
                        base.toString(),
                        "--batch",
                        "1",
                        "--start",
                        "0");
        assertThat(land.code).as(land.output).isZero();

        Result first = bronzeOnTheCluster(base);
        assertThat(first.code).as(first.output).isZero();
        assertThat(first.output)
                .contains("Job has been submitted with JobID")
                .contains("bronze: 1 batch, 500 rows read, last batch id 0");
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(500);
        assertThat(savepoints(base))
                .as("the run ended with a savepoint in the query's checkpoint")
                .hasSize(1);

        LocalEventFiles.writeBatch(base.resolve("events"), 2, EventGenerator.events(500, 500));
        Result second = bronzeOnTheCluster(base);
        assertThat(second.code).as(second.output).isZero();
        assertThat(second.output).contains("bronze: 1 batch, 500 rows read, last batch id 1");
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(1000);
        assertThat(batchIds(base)).containsExactly(0L, 1L);
    }

    /**
     * A user's own query, the example project's jar, with {@code flink run}: the jar on the job's
     * class path ({@code -C}) and given to {@code run --jar}, as embedded ({@code UserJarITCase}).
     * A second submission with nothing new reads nothing and leaves the table as it was. After 500
     * more events, a third without {@code -C}: the client ships the jar with the job (as in
     * docker-compose, whose cluster cannot read the client's files) and the TaskManagers run the
     * query's functions from it.
     */
    @Test
    void aUsersJarRunsOnTheClusterWithFlinkRun() {
        Path base = WORK.resolve("user-jar");
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        Path jar = ExampleJar.build(WORK.resolve("user-jar-build"));
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 500));
        Result bronze = bronzeOnTheCluster(base);
        assertThat(bronze.code).as(bronze.output).isZero();

        String[] userJarRun = userJarRun(jar, base, true);
        Result first = flink(userJarRun);
        assertThat(first.code).as(first.output).isZero();
        assertThat(first.output)
                .contains("Job has been submitted with JobID")
                .contains("buys-per-user: ")
                .contains("500 rows read");
        List<List<Object>> expected = UserJarITCase.closedBuyWindows(EventGenerator.events(0, 500));
        assertThat(warehouse.sortedValues(UserJarITCase.TABLE)).isEqualTo(expected);

        Result second = flink(userJarRun);
        assertThat(second.code).as(second.output).isZero();
        assertThat(second.output).contains("0 rows read");
        assertThat(warehouse.sortedValues(UserJarITCase.TABLE)).isEqualTo(expected);

        LocalEventFiles.writeBatch(base.resolve("events"), 2, EventGenerator.events(500, 500));
        Result moreBronze = bronzeOnTheCluster(base);
        assertThat(moreBronze.code).as(moreBronze.output).isZero();
        Result third = flink(userJarRun(jar, base, false));
        assertThat(third.code).as(third.output).isZero();
        assertThat(third.output).contains("buys-per-user: ").contains("500 rows read");
        // Append mode: the windows the first run wrote stay, each once.
        assertThat(warehouse.sortedValues(UserJarITCase.TABLE))
                .containsAll(expected)
                .doesNotHaveDuplicates();
    }

    /**
     * {@code flink stop --savepointPath} and {@code run -s}. The runner is the job's client, so
     * {@code -d} does not detach: the client watches the job until it ends. When it sees the job
     * stopped from outside it copies the savepoint into the query's checkpoint, and the next run
     * continues from there, with or without {@code -s}. A {@code -s} newer than everything in the
     * checkpoint (a stop that no client saw) is taken.
     */
    @Test
    void aProcessingTimeRunStoppedWithASavepointIsResumedFromIt() throws IOException {
        Path base = WORK.resolve("processing-time");
        Path external = WORK.resolve("external-savepoints");
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 500));

        // A processing-time run, "detached": it keeps running until stopped from outside.
        Process client = startContinuous(base, "continuous-1");
        String job = jobId(client, WORK.resolve("continuous-1.log"));
        awaitRows(warehouse, 500, client, WORK.resolve("continuous-1.log"));
        Result stop = flink("stop", "-m", MASTER, "--savepointPath", external.toString(), job);
        assertThat(stop.code).as(stop.output).isZero();
        String savepoint = group(SAVEPOINT, stop.output);
        String clientOutput = awaitExit(client, WORK.resolve("continuous-1.log"));
        assertThat(clientOutput)
                .contains("bronze: stopped from outside with savepoint")
                .contains("the next run continues from it")
                .contains("bronze: 1 batch, 500 rows read, last batch id 0");
        assertThat(savepoints(base))
                .as("the external savepoint, copied into the query's checkpoint")
                .hasSize(1);

        // run -s with that savepoint: it is the one the checkpoint already holds a copy of.
        LocalEventFiles.writeBatch(base.resolve("events"), 2, EventGenerator.events(500, 500));
        Result resumed =
                flink(
                        "run",
                        "-m",
                        MASTER,
                        "-s",
                        savepoint,
                        CLUSTER_JAR.toString(),
                        "run",
                        "bronze",
                        "--base",
                        base.toString(),
                        "--quiet");
        assertThat(resumed.code).as(resumed.output).isZero();
        assertThat(resumed.output)
                .contains("is already in the checkpoint")
                .contains("bronze: 1 batch, 500 rows read, last batch id 1");
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(1000);

        // The client dies (kill -9) while the job runs on; the job is stopped from outside later,
        // so nobody copies its savepoint: run -s hands it over, and it is newer than the
        // checkpoint's.
        LocalEventFiles.writeBatch(base.resolve("events"), 3, EventGenerator.events(1000, 500));
        Process lost = startContinuous(base, "continuous-2");
        String lostJob = jobId(lost, WORK.resolve("continuous-2.log"));
        awaitRows(warehouse, 1500, lost, WORK.resolve("continuous-2.log"));
        await(
                "batch 2 in the progress log",
                () -> batchIds(base).contains(2L),
                Duration.ofMinutes(2));
        lost.destroyForcibly();
        assertTrue(waitFor(lost, Duration.ofSeconds(30)), "the client survived SIGKILL");
        Result stopLost =
                flink("stop", "-m", MASTER, "--savepointPath", external.toString(), lostJob);
        assertThat(stopLost.code).as(stopLost.output).isZero();
        String newer = group(SAVEPOINT, stopLost.output);

        LocalEventFiles.writeBatch(base.resolve("events"), 4, EventGenerator.events(1500, 500));
        Result fromNewer =
                flink(
                        "run",
                        "-m",
                        MASTER,
                        "-s",
                        newer,
                        CLUSTER_JAR.toString(),
                        "run",
                        "bronze",
                        "--base",
                        base.toString(),
                        "--quiet");
        assertThat(fromNewer.code).as(fromNewer.output).isZero();
        assertThat(fromNewer.output)
                .contains("note: restoring from -s")
                .contains("bronze: 1 batch, 500 rows read, last batch id 3");
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(2000);
        assertThat(batchIds(base)).containsExactly(0L, 1L, 2L, 3L);
    }

    /**
     * Issue 14, point 1: the client of an available-now run is killed (SIGKILL of the {@code
     * scripts/flink run} process, as a closed terminal or a dropped ssh would) while its job runs
     * on the cluster. The rerun finds that job through the REST API, cancels it, says so, and only
     * then restores and submits: the table holds every event exactly once and the batch ids do not
     * repeat. Both runs use {@code -p 1}, so that the cluster's two slots would let the two jobs
     * run side by side if nothing fenced the first.
     */
    @Test
    void theNextRunCancelsTheJobOfAKilledClientBeforeItStarts() throws Exception {
        Path base = WORK.resolve("killed-client");
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        int files = 12;
        for (int file = 0; file < files; file++) {
            EventFiles.writeBatch(
                    Storage.location(base.resolve("events").toFile()),
                    file + 1,
                    EventGenerator.events(file * 500L, 500));
        }
        String[] run = {
            "run",
            "-m",
            MASTER,
            "-p",
            "1",
            CLUSTER_JAR.toString(),
            "run",
            "bronze",
            "--base",
            base.toString(),
            "--max-files-per-trigger",
            "1",
            "--checkpoint-interval",
            "1s",
            "--quiet"
        };
        Path firstLog = WORK.resolve("killed-client-1.log");
        Process first = startClient(firstLog, run);
        String orphan = jobId(first, firstLog);
        await(
                "two committed batches of the first run",
                () -> {
                    assertTrue(first.isAlive(), () -> "the client ended early:\n" + read(firstLog));
                    return batchIds(base).size() >= 2;
                },
                AWAIT);
        first.destroyForcibly();
        assertTrue(waitFor(first, Duration.ofSeconds(30)), "the client survived SIGKILL");
        log("killed the first client after batches " + batchIds(base));
        assertThat(jobState(orphan)).as("the killed client's job").isEqualTo("RUNNING");

        Result second = flink(run);
        assertThat(second.code).as(second.output).isZero();
        assertThat(second.output)
                .contains("job " + orphan)
                .contains("cancelled")
                .contains("bronze: ");
        // Cancelled, or failed by its own fence check (the new run owns the checkpoint) first.
        assertThat(jobState(orphan)).as("the orphaned job").isIn("CANCELED", "FAILED");

        List<List<Object>> rows = warehouse.sortedValues(BronzeQuery.TABLE);
        List<Long> ids = rows.stream().map(row -> (Long) row.get(0)).toList();
        assertThat(ids)
                .as("every event exactly once")
                .containsExactlyElementsOf(
                        java.util.stream.LongStream.range(0, files * 500L).boxed().toList());
        List<Long> batches = batchIds(base);
        assertThat(batches).as("batch ids").doesNotHaveDuplicates().isSorted();
        assertThat(batches.get(batches.size() - 1)).isEqualTo(files - 1L);
    }

    // ---------------------------------------------------------------------------------------------

    private static Process startContinuous(Path base, String name) {
        Path log = WORK.resolve(name + ".log");
        ProcessBuilder builder =
                builder(
                        ROOT.resolve("scripts/flink").toString(),
                        "run",
                        "-m",
                        MASTER,
                        "-d",
                        CLUSTER_JAR.toString(),
                        "run",
                        "bronze",
                        "--base",
                        base.toString(),
                        "--trigger",
                        "processing-time=2s",
                        "--quiet");
        builder.redirectOutput(log.toFile());
        try {
            Process process = builder.start();
            CLIENTS.add(process);
            log("started " + name + " (pid " + process.pid() + ")");
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Process startClient(Path log, String... flinkArgs) {
        String[] command = new String[flinkArgs.length + 1];
        command[0] = ROOT.resolve("scripts/flink").toString();
        System.arraycopy(flinkArgs, 0, command, 1, flinkArgs.length);
        ProcessBuilder builder = builder(command);
        builder.redirectOutput(log.toFile());
        try {
            Process process = builder.start();
            CLIENTS.add(process);
            log("started " + log.getFileName() + " (pid " + process.pid() + ")");
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A job's state as the cluster's REST API reports it, or null if it does not know the job. */
    private static String jobState(String jobId) {
        String body = ProjectScripts.httpGet("http://" + MASTER + "/jobs/" + jobId);
        if (body == null) {
            return null;
        }
        Matcher m = Pattern.compile("\"state\"\\s*:\\s*\"([A-Z_]+)\"").matcher(body);
        return m.find() ? m.group(1) : body;
    }

    private static String jobId(Process client, Path log) {
        await(
                "the job id in " + log,
                () -> JOB_ID.matcher(read(log)).find() || !client.isAlive(),
                AWAIT);
        return group(JOB_ID, read(log));
    }

    private static void awaitRows(Warehouse warehouse, long rows, Process client, Path log) {
        await(
                rows + " rows in events_bronze (client output: " + log + ")",
                () -> {
                    assertTrue(client.isAlive(), () -> "the client ended early:\n" + read(log));
                    return warehouse.count(BronzeQuery.TABLE) >= rows;
                },
                AWAIT);
        assertThat(warehouse.count(BronzeQuery.TABLE)).isEqualTo(rows);
    }

    private static String awaitExit(Process client, Path log) {
        assertTrue(
                waitFor(client, Duration.ofMinutes(3)),
                () -> "the client did not end after the stop:\n" + read(log));
        assertThat(client.exitValue()).as(read(log)).isZero();
        return read(log);
    }

    private static List<Path> savepoints(Path base) {
        Path dir =
                Storage.localFile(
                                CheckpointLayout.of(Storage.location(base.toFile()), "bronze")
                                        .savepoints(),
                                "a test file")
                        .toPath();
        try (var s = Files.list(dir)) {
            return s.filter(p -> Files.exists(p.resolve("_metadata"))).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Long> batchIds(Path base) {
        return ProgressTracker.history(
                        CheckpointLayout.of(Storage.location(base.toFile()), "bronze"))
                .stream()
                .map(p -> p.path("batchId").asLong())
                .toList();
    }

    /** {@code flink run ... flinkss-jobs-cluster.jar run bronze --base <base> --quiet}. */
    /**
     * {@code flink run ... run --jar JAR --class ...} of the example's query: with {@code -C JAR}
     * (the jar on the job's class path), or without (the client ships it with the job).
     */
    private static String[] userJarRun(Path jar, Path base, boolean onClassPath) {
        List<String> args = new ArrayList<>(List.of("run", "-m", MASTER));
        if (onClassPath) {
            args.addAll(List.of("-C", jar.toUri().toString()));
        }
        args.addAll(List.of(CLUSTER_JAR.toString(), "run", "--jar", jar.toString(), "--class"));
        args.addAll(List.of(ExampleJar.QUERY_CLASS, "--base", base.toString(), "--quiet"));
        return args.toArray(String[]::new);
    }

    private static Result bronzeOnTheCluster(Path base) {
        return flink(
                "run",
                "-m",
                MASTER,
                CLUSTER_JAR.toString(),
                "run",
                "bronze",
                "--base",
                base.toString(),
                "--quiet");
    }

    private static Result flink(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = ROOT.resolve("scripts/flink").toString();
        System.arraycopy(args, 0, command, 1, args.length);
        return command(COMMAND_TIMEOUT, command);
    }

    private static final class Result {
        final int code;
        final String output;

        Result(int code, String output) {
            this.code = code;
            this.output = output;
        }
    }

    /** Runs a command to its end (killed after the timeout), both streams into one file. */
    private static Result command(Duration timeout, String... command) {
        Path log =
                WORK.resolve(
                        String.format(
                                "%02d-%s.log", ++commands, Paths.get(command[0]).getFileName()));
        long started = System.nanoTime();
        ProcessBuilder builder = builder(command);
        builder.redirectOutput(log.toFile());
        try {
            Files.createDirectories(WORK);
            Process process = builder.start();
            if (!waitFor(process, timeout)) {
                process.destroyForcibly();
                throw new AssertionError(
                        String.join(" ", command)
                                + " did not end within "
                                + timeout
                                + ":\n"
                                + read(log));
            }
            log(
                    String.format(
                            "%5.1fs  %s",
                            (System.nanoTime() - started) / 1e9,
                            String.join(
                                    " ",
                                    Arrays.copyOfRange(command, 0, Math.min(command.length, 8)))));
            return new Result(process.exitValue(), read(log));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        }
    }

    private static ProcessBuilder builder(String... command) {
        ProcessBuilder builder =
                new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true);
        // The scripts' own installation (<project>/.flink) and configuration, not the caller's.
        builder.environment().remove("FLINK_HOME");
        builder.environment().remove("FLINK_CONF_DIR");
        // As ProjectScripts gives the other cluster tests: in one CI run beside the docker-compose
        // test, this cluster's TaskManager spent 15 s starting its actor system and 48 s between
        // its two blob caches, and had not registered after scripts/cluster's default 120 s.
        builder.environment().put("FLINKSS_CLUSTER_TIMEOUT", "300");
        return builder;
    }

    private static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static void await(String what, BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    private static String group(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        assertTrue(m.find(), () -> "no match for " + pattern + " in:\n" + text);
        return m.group(1);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    /** "" if the port is free on 127.0.0.1, else why not. */
    private static String taken(int port, String purpose) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return "";
        } catch (IOException e) {
            return " port " + port + " (" + purpose + ") is in use (" + e.getMessage() + ").";
        }
    }

    private static Path projectRoot() {
        Path dir = Paths.get("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("scripts/cluster"))
                    && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        throw new IllegalStateException(
                "no project root (a folder with scripts/cluster) above " + dir);
    }

    private static void log(String line) {
        System.out.printf("[ClusterITCase %6.1fs] %s%n", (System.nanoTime() - START) / 1e9, line);
    }
}
