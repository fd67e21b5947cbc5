package org.flinkss.jobs.cluster;

import org.apache.flink.configuration.Configuration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.userquery.ExampleJar;
import org.flinkss.jobs.userquery.UserJarITCase;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.storage.impl.LocalDisk;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.RunFreeRows;
import org.flinkss.runtime.testing.S3TestServer;
import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code docker/docker-compose.yml} run for real with the project's jobs (issue 16): the images
 * built here ({@code scripts/docker-images}: debootstrap base, Flink, Kafka, S3Proxy, client), the
 * compose cluster up (a JobManager, two TaskManagers, Kafka, S3Proxy, the client), and
 *
 * <ol>
 *   <li>the cluster: both TaskManagers registered, Kafka creates and lists a topic, S3Proxy answers
 *       with the bucket;
 *   <li>the course scenario from the client container: {@code land-events} (500 events) into an
 *       {@code s3://flinkss/...} base, bronze and win5 submitted with {@code flink run}, 500 more
 *       events, both again: bronze 500 then 1000 rows, read back with {@code table count} in the
 *       client; bronze a third time (nothing new, still 1000 rows), the pipeline (silver, gold) and
 *       a user's own query (issue 31: the example project's jar copied into the client, {@code
 *       flink run ... run --jar ... --class ...}, shipped to the cluster by the client); every
 *       table equal, row for row, to the same commands run embedded in this JVM on a local base;
 *   <li>a TaskManager container killed ({@code docker kill}, SIGKILL) while bronze runs in batches
 *       of one file, after two batches committed: the run finishes on the other TaskManager's two
 *       slots, and then win5: every table equals an uninterrupted local run's (nothing lost,
 *       nothing twice).
 * </ol>
 *
 * Checkpoints, savepoints and tables are on S3 only (no shared host folder); this JVM reads the
 * tables through S3Proxy's published port. Everything is brought down with its volumes whatever
 * happens ({@link DockerComposeCluster}).
 *
 * <p>Tagged {@code docker}: skipped with the reason when no Docker engine answers and {@code
 * scripts/dockerd start} cannot start one (not root, no docker.io); {@code -DexcludedGroups=docker}
 * leaves it out. Measured here: images from nothing about 12 min (2 cores under load), unchanged
 * images seconds (the client image about 1 min after a code change).
 */
@Tag("docker")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DockerComposeITCase {

    private static final Path WORK = ProjectScripts.ROOT.resolve("jobs/target/docker-compose-it");
    private static final String CLUSTER_JAR = "/opt/flinkss/jobs/flinkss-jobs-cluster.jar";

    /** Where docker/README.md copies a user's jar in the client container. */
    private static final String USER_JAR = "/tmp/my-first-query.jar";

    private static final String WIN5_TABLE = "events_5min";
    private static final String SILVER_TABLE = "events_silver";
    private static final String GOLD_TABLE = "events_by_type";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The kill test: 12 files of 2,000 events, one file a batch. */
    private static final int KILL_FILES = 12;

    private static final int EVENTS_PER_FILE = 2_000;
    private static final String FILES_PER_BATCH = "1";

    private static ProjectScripts scripts;
    private static DockerComposeCluster cluster;
    private static String skipped;

    @BeforeAll
    static void buildImagesAndComeUp() throws IOException {
        scripts = new ProjectScripts(WORK, "DockerComposeITCase");
        String unavailable = DockerComposeCluster.engineUnavailable(scripts);
        if (unavailable == null && !ProjectScripts.onPath("curl")) {
            unavailable = "curl is not on the PATH (apt-get install curl)";
        }
        if (unavailable != null) {
            skipped = "DockerComposeITCase skipped: " + unavailable;
            System.err.println(skipped);
            return;
        }
        assertThat(ProjectScripts.ROOT.resolve("jobs/target/flinkss-jobs-cluster.jar"))
                .as(
                        "the client image needs the job jars: run 'mvn package' first (this test"
                                + " runs in failsafe, after package)")
                .exists();
        LocalDisk.deleteRecursively(WORK.resolve("local"));
        long started = System.nanoTime();
        // Waits for a build that .ci/run started in the background (scripts/docker-images takes a
        // lock), then builds what is missing or changed: at least the client, after a change.
        scripts.script(Duration.ofMinutes(45), "docker-images")
                .assertSuccess("scripts/docker-images");
        scripts.log(String.format("images ready in %.1f s", (System.nanoTime() - started) / 1e9));
        started = System.nanoTime();
        cluster = DockerComposeCluster.up(scripts, "flinkss-it", Duration.ofMinutes(6));
        scripts.log(
                String.format(
                        "compose cluster up, 2 TaskManagers registered, in %.1f s",
                        (System.nanoTime() - started) / 1e9));
        // This JVM reads (and for the kill test writes landing files) through S3Proxy's published
        // port.
        Configuration s3 = new Configuration();
        s3.setString("s3.endpoint", cluster.s3Url());
        s3.setString("s3.path.style.access", "true");
        s3.setString("s3.access-key", S3TestServer.ACCESS_KEY);
        s3.setString("s3.secret-key", S3TestServer.SECRET_KEY);
        Storage.initialize(s3);
    }

    @BeforeEach
    void skipWithoutEngine() {
        // Here and not in @BeforeAll, so that each test is reported as skipped, with the reason.
        assumeTrue(skipped == null, skipped);
    }

    @AfterAll
    static void comeDown() {
        if (cluster != null) {
            long started = System.nanoTime();
            cluster.close();
            scripts.log(
                    String.format(
                            "compose cluster down (volumes too) in %.1f s",
                            (System.nanoTime() - started) / 1e9));
        }
        if (scripts != null) {
            DockerComposeCluster.stopEngineIfStarted(scripts);
        }
    }

    @Test
    @Order(1)
    void theClusterComesUpWithTwoTaskManagersKafkaAndTheBucket() {
        JsonNode taskManagers = json(cluster.restUrl() + "/taskmanagers").path("taskmanagers");
        List<String> ids = new ArrayList<>();
        taskManagers.forEach(tm -> ids.add(tm.path("id").asText()));
        assertThat(ids).containsExactlyInAnyOrder("taskmanager-1", "taskmanager-2");

        String topic = "flinkss-it-probe";
        cluster.exec(
                        "kafka",
                        "/opt/kafka/bin/kafka-topics.sh",
                        "--bootstrap-server",
                        "kafka:19092",
                        "--create",
                        "--if-not-exists",
                        "--topic",
                        topic,
                        "--partitions",
                        "2")
                .assertSuccess("create a topic");
        assertThat(
                        cluster.exec(
                                        "kafka",
                                        "/opt/kafka/bin/kafka-topics.sh",
                                        "--bootstrap-server",
                                        "kafka:19092",
                                        "--list")
                                .assertSuccess("list the topics")
                                .output())
                .contains(topic);

        assertThat(cluster.s3Status("HEAD", "/flinkss"))
                .as("HEAD of the bucket flinkss on S3Proxy")
                .isEqualTo(200);
    }

    @Test
    @Order(2)
    void theCourseScenarioSubmittedFromTheClientEqualsTheSameCommandsRunLocally() {
        String remote = freshPrefix("course");
        String local = WORK.resolve("local/course").toString();

        // In the compose cluster: land-events in the client, the queries with flink run.
        inClient("land-events", "--batch", "1", "--start", "0", "--base", remote);
        flinkRun("run", "bronze", "--quiet", "--base", remote);
        assertThat(countInClient(remote, BronzeQuery.TABLE)).isEqualTo(500);
        flinkRun("run", "win5", "--quiet", "--base", remote);
        inClient("land-events", "--batch", "2", "--start", "500", "--base", remote);
        flinkRun("run", "bronze", "--quiet", "--base", remote);
        assertThat(countInClient(remote, BronzeQuery.TABLE)).isEqualTo(1000);
        flinkRun("run", "win5", "--quiet", "--base", remote);
        // Bronze a third time: nothing new, the table unchanged.
        assertThat(flinkRun("run", "bronze", "--quiet", "--base", remote))
                .contains("bronze: nothing new (0 rows read, no new batch; next batch id 2)");
        assertThat(countInClient(remote, BronzeQuery.TABLE)).isEqualTo(1000);
        // The pipeline: its bronze finds nothing new, then silver and gold.
        assertThat(flinkRun("run", "pipeline", "--quiet", "--base", remote))
                .contains("silver: ", "gold: ");
        // A user's own query (issue 31), as docker/README.md shows it: the example project's jar
        // copied into the client container, then flink run ... run --jar. The client ships the
        // jar with the job: the JobManager and the TaskManagers have no copy of it.
        Path userJar = ExampleJar.build(WORK.resolve("user-jar-build"));
        cluster.copyInto("client", userJar, USER_JAR);
        assertThat(
                        flinkRun(
                                "run",
                                "--jar",
                                USER_JAR,
                                "--class",
                                ExampleJar.QUERY_CLASS,
                                "--quiet",
                                "--base",
                                remote))
                .contains("buys-per-user: ", "1000 rows read");

        // The same commands embedded in this JVM, on a local base.
        ok("land-events", "--batch", "1", "--start", "0", "--base", local);
        ok("run", "bronze", "--quiet", "--base", local);
        ok("run", "win5", "--quiet", "--base", local);
        ok("land-events", "--batch", "2", "--start", "500", "--base", local);
        ok("run", "bronze", "--quiet", "--base", local);
        ok("run", "win5", "--quiet", "--base", local);
        ok("run", "bronze", "--quiet", "--base", local);
        ok("run", "pipeline", "--quiet", "--base", local);
        ok(
                "run",
                "--jar",
                userJar.toString(),
                "--class",
                ExampleJar.QUERY_CLASS,
                "--quiet",
                "--base",
                local);

        Warehouse onCluster = new Warehouse(Storage.location(remote + "/warehouse"));
        Warehouse onDisk = new Warehouse(Storage.location(Path.of(local, "warehouse").toFile()));
        assertThat(onCluster.tables())
                .contains(
                        BronzeQuery.TABLE,
                        WIN5_TABLE,
                        SILVER_TABLE,
                        GOLD_TABLE,
                        UserJarITCase.TABLE)
                .isEqualTo(onDisk.tables());
        assertThat(onDisk.count(BronzeQuery.TABLE)).isEqualTo(1000);
        assertThat(onDisk.sortedValues(UserJarITCase.TABLE))
                .as("the user's query: buy windows closed by bronze's 1000 events")
                .isNotEmpty()
                .isEqualTo(UserJarITCase.closedBuyWindows(EventGenerator.events(0, 1000)));
        for (String table : List.of(WIN5_TABLE, SILVER_TABLE, GOLD_TABLE)) {
            assertThat(onDisk.count(table)).as(table).isPositive();
        }
        for (String table : onDisk.tables()) {
            assertThat(RunFreeRows.of(onCluster, table))
                    .as("%s on the compose cluster against the local run (run_id left out)", table)
                    .isEqualTo(RunFreeRows.of(onDisk, table));
        }
    }

    @Test
    @Order(3)
    void aKilledTaskManagerContainerLosesNothingAndDuplicatesNothing() throws Exception {
        String remote = freshPrefix("kill");
        String local = WORK.resolve("local/kill").toString();
        // Written from this JVM (the course scenario above lands with the command): through the
        // published S3 port, and on the local base.
        for (int file = 0; file < KILL_FILES; file++) {
            List<Event> batch =
                    EventGenerator.events((long) file * EVENTS_PER_FILE, EVENTS_PER_FILE);
            EventFiles.writeBatch(Storage.location(remote + "/events"), file + 1, batch);
            LocalEventFiles.writeBatch(Path.of(local, "events"), file + 1, batch);
        }
        long events = (long) KILL_FILES * EVENTS_PER_FILE;

        // The uninterrupted reference, embedded. win5 reads bronze's table in one batch: how
        // bronze's versions split its files differs between runs (a restart re-plans).
        ok("run", "bronze", "--quiet", "--base", local, "--max-files-per-trigger", FILES_PER_BATCH);
        ok("run", "win5", "--quiet", "--base", local);
        Warehouse expected = new Warehouse(Storage.location(Path.of(local, "warehouse").toFile()));
        assertThat(expected.count(BronzeQuery.TABLE)).isEqualTo(events);

        // Bronze on the cluster; taskmanager-1's container dies once a batch is committed: at once
        // (docker kill, its id asked for beforehand), since the job's twelve batches take seconds.
        Warehouse actual = new Warehouse(Storage.location(remote + "/warehouse"));
        String taskManager1 = cluster.containerId("taskmanager-1");
        AtomicLong committedBeforeKill = new AtomicLong();
        Path bronzeLog = WORK.resolve("kill-bronze-client.log");
        Process bronze =
                cluster.execBuilder(
                                "client",
                                flinkRunArgs(
                                        "run",
                                        "bronze",
                                        "--quiet",
                                        "--base",
                                        remote,
                                        "--max-files-per-trigger",
                                        FILES_PER_BATCH))
                        .redirectOutput(bronzeLog.toFile())
                        .start();
        long committedAtKill;
        long killed;
        try {
            ProjectScripts.await(
                    "a bronze batch committed on the compose cluster",
                    () -> {
                        assertThat(bronze.isAlive())
                                .as(
                                        "the bronze client ended early:\n%s",
                                        ProjectScripts.read(bronzeLog))
                                .isTrue();
                        if (!actual.exists(BronzeQuery.TABLE)) {
                            return false;
                        }
                        committedBeforeKill.set(actual.count(BronzeQuery.TABLE));
                        return committedBeforeKill.get()
                                >= (long) Integer.parseInt(FILES_PER_BATCH) * EVENTS_PER_FILE;
                    },
                    Duration.ofMinutes(5));
            cluster.killContainer(taskManager1);
            killed = System.nanoTime();
            committedAtKill = committedBeforeKill.get();
            assertThat(bronze.waitFor(8, TimeUnit.MINUTES))
                    .as("the bronze client ended within 8 minutes of the kill")
                    .isTrue();
        } finally {
            if (bronze.isAlive()) {
                bronze.destroyForcibly();
                scripts.log("docker-compose logs:\n" + cluster.logs());
            }
        }
        String bronzeOutput = ProjectScripts.read(bronzeLog);
        scripts.log(
                String.format(
                        "bronze: %d of %d rows committed before the kill; finished %.1f s after it",
                        committedAtKill, events, (System.nanoTime() - killed) / 1e9));
        assertThat(bronze.exitValue()).as(bronzeOutput).isZero();
        assertThat(committedAtKill).as("the kill came before the end").isLessThan(events);
        assertThat(bronzeOutput)
                .contains(events + " rows read")
                .as("the restart is noted in one line, with no stack trace")
                .contains("query 'bronze': the job restarts from its last checkpoint after a")
                .doesNotContain("\tat ");
        assertThat(cluster.containerId("taskmanager-1"))
                .as("taskmanager-1's container still exists (killed, not removed)")
                .isEqualTo(taskManager1);

        // win5 on the TaskManager left (its two slots).
        flinkRun("run", "win5", "--quiet", "--base", remote);

        // Every table (bronze's quarantine, win5's late rows, ...), as in the scenario above.
        assertThat(actual.tables())
                .contains(BronzeQuery.TABLE, WIN5_TABLE)
                .isEqualTo(expected.tables());
        assertThat(actual.sortedValues(BronzeQuery.TABLE))
                .as("events_bronze after a killed TaskManager, against an uninterrupted run")
                .hasSize((int) events);
        assertThat(actual.count(WIN5_TABLE)).as(WIN5_TABLE).isPositive();
        for (String table : expected.tables()) {
            assertThat(RunFreeRows.of(actual, table))
                    .as(
                            "%s after a killed TaskManager, against an uninterrupted run (run_id"
                                    + " left out)",
                            table)
                    .isEqualTo(RunFreeRows.of(expected, table));
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static String freshPrefix(String test) {
        return "s3://flinkss/" + test + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * {@code flinkss <args>} in the client container: the image's {@code java -jar
     * flinkss-jobs.jar} through its entrypoint (which writes the container's Flink configuration,
     * the S3 endpoint among it, and exports the credentials), as docker/README.md tells users.
     */
    private static String inClient(String... args) {
        List<String> command = new ArrayList<>(List.of("flinkss"));
        command.addAll(List.of(args));
        return cluster.exec(Duration.ofMinutes(5), "client", command.toArray(String[]::new))
                .assertSuccess("in the client container: flinkss " + String.join(" ", args))
                .output();
    }

    /** {@code table count} in the client container: the last line of what it printed. */
    private static long countInClient(String base, String table) {
        String out = inClient("table", "count", table, "--warehouse", base + "/warehouse").strip();
        return Long.parseLong(out.substring(out.lastIndexOf('\n') + 1).strip());
    }

    /**
     * {@code flink run -m jobmanager:8081 flinkss-jobs-cluster.jar <args>} from the client: what it
     * printed.
     */
    private static String flinkRun(String... args) {
        return cluster.exec(Duration.ofMinutes(8), "client", flinkRunArgs(args))
                .assertSuccess("in the client container: flink run ... " + String.join(" ", args))
                .output();
    }

    private static String[] flinkRunArgs(String... args) {
        List<String> command =
                new ArrayList<>(List.of("flink", "run", "-m", "jobmanager:8081", CLUSTER_JAR));
        command.addAll(List.of(args));
        return command.toArray(String[]::new);
    }

    private static CliOutput ok(String... args) {
        CliOutput o = CliOutput.of(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    private static JsonNode json(String url) {
        String body = ProjectScripts.httpGet(url);
        try {
            return body == null ? JSON.createObjectNode() : JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
