package org.flinkss.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.flinkss.jobs.s3.S3SmokeJob;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The cluster's S3 plumbing with real processes: {@code scripts/s3 start} (S3Proxy) and {@code
 * scripts/cluster start --taskmanagers 2} (the flink-s3-fs-hadoop plugin, endpoint from {@code
 * --s3-endpoint}, credentials through the environment), then a small job of its own ({@link
 * S3SmokeJob}, not the project's code: MultiTaskManagerITCase runs that): checkpoints to {@code
 * s3://flinkss/...} and a {@code FileSink} to {@code s3://flinkss/...} through Flink's recoverable
 * (multipart) S3 writer. One TaskManager is killed with SIGKILL ({@code scripts/cluster
 * kill-taskmanager 1}) after two checkpoints; the job restores from its S3 checkpoint on the
 * survivor and every number is in the output exactly once.
 *
 * <p>The cluster is started with a slow class path listing (a sleeping {@code paste} first on the
 * PATH), the condition under which the old scripts lost track of their processes (issue 14, point
 * 10): {@code status} must still list every process, {@code stop} end them all.
 *
 * <p>Ports are picked free, the installations live under {@code jobs/target/s3-cluster-it}, so
 * nothing here collides with a cluster, S3Proxy or test of the user's.
 */
@Tag("ports")
class S3ClusterITCase {

    private static final Path WORK = ProjectScripts.ROOT.resolve("jobs/target/s3-cluster-it");
    private static final Path S3_DATA = WORK.resolve("s3-data");
    private static final Pattern JOB_ID =
            Pattern.compile("Job has been submitted with JobID ([0-9a-f]{32})");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int NUMBERS = 12_000;

    private static ProjectScripts scripts;
    private static String rest;
    private static String skipped;
    private static boolean started;
    private static Thread stopOnExit;

    @BeforeAll
    static void startS3AndCluster() throws IOException {
        if (!ProjectScripts.onPath("curl")) {
            skipped =
                    "S3ClusterITCase skipped: scripts/cluster and scripts/s3 need curl (apt-get"
                            + " install curl; .ci/run installs it).";
            return;
        }
        deleteRecursively(WORK);
        Files.createDirectories(WORK);
        int s3Port = ProjectScripts.freePort();
        int restPort = ProjectScripts.freePort();
        int rpcPort = ProjectScripts.freePort();
        rest = "http://127.0.0.1:" + restPort;
        scripts =
                new ProjectScripts(WORK, "S3ClusterITCase")
                        .env("FLINK_HOME", WORK.resolve("flink").toString())
                        .env("FLINKSS_S3_HOME", WORK.resolve("s3").toString())
                        // The local default credentials of flink-conf/config.yaml, not the
                        // caller's.
                        .env("AWS_ACCESS_KEY_ID", "")
                        .env("AWS_SECRET_ACCESS_KEY", "");
        started = true;
        stopOnExit = new Thread(S3ClusterITCase::stopAll, "S3ClusterITCase-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);

        scripts.script(
                        Duration.ofMinutes(5),
                        "s3",
                        "start",
                        "--port",
                        String.valueOf(s3Port),
                        "--data-dir",
                        S3_DATA.toString())
                .assertSuccess("scripts/s3 start");
        ProjectScripts slow =
                new ProjectScripts(WORK.resolve("slow-start"), "S3ClusterITCase")
                        .env("FLINK_HOME", WORK.resolve("flink").toString())
                        .env("AWS_ACCESS_KEY_ID", "")
                        .env("AWS_SECRET_ACCESS_KEY", "")
                        .env(
                                "PATH",
                                ScriptStartRaceITCase.slowPasteDir(WORK)
                                        + ":"
                                        + System.getenv("PATH"));
        ProjectScripts.Result start =
                slow.script(
                        Duration.ofMinutes(6),
                        "cluster",
                        "start",
                        "--taskmanagers",
                        "2",
                        "--rest-port",
                        String.valueOf(restPort),
                        "--rpc-port",
                        String.valueOf(rpcPort),
                        "--s3-endpoint",
                        "http://127.0.0.1:" + s3Port,
                        "--data-dir",
                        WORK.resolve("flink-data").toString());
        start.assertSuccess("scripts/cluster start --taskmanagers 2 (slow class path listing)");
        assertThat(start.output()).contains("2 TaskManager(s), 4 slots");
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
        scripts.script(Duration.ofMinutes(1), "s3", "stop");
    }

    @Test
    void checkpointsAndARecoverableFileSinkOnS3SurviveAKilledTaskManager() throws Exception {
        ProjectScripts.Result status = scripts.script(Duration.ofMinutes(1), "cluster", "status");
        assertThat(status.code()).as(status.output()).isZero();
        assertThat(status.output())
                .contains("taskmanager-1: running")
                .contains("taskmanager-2: running")
                .contains("jobmanager: running")
                .contains(
                        "TaskManagers registered with the JobManager: taskmanager-1 taskmanager-2");
        assertThat(Files.readString(WORK.resolve("flink/conf/config.yaml")))
                .as("the installed config.yaml (Flink logs it) holds no credentials")
                .doesNotContainPattern("(?m)^s3\\.access-key:")
                .doesNotContainPattern("(?m)^s3\\.secret-key:")
                .doesNotContain("flinkss-local-secret");

        Path jar = S3SmokeJob.writeJar(WORK.resolve("s3-smoke.jar"));
        ProjectScripts.Result submit =
                scripts.script(
                        Duration.ofMinutes(3),
                        "flink",
                        "run",
                        "-m",
                        rest.substring("http://".length()),
                        "-d",
                        "-c",
                        S3SmokeJob.class.getName(),
                        jar.toString(),
                        "s3://flinkss/smoke/out",
                        "s3://flinkss/smoke/checkpoints",
                        String.valueOf(NUMBERS),
                        "2");
        submit.assertSuccess("flink run S3SmokeJob");
        Matcher m = JOB_ID.matcher(submit.output());
        assertThat(m.find()).as(submit.output()).isTrue();
        String job = m.group(1);

        // Two completed checkpoints, written to S3: the store's files hold their _metadata.
        ProjectScripts.await(
                "2 completed checkpoints of " + job,
                () -> completedCheckpoints(job) >= 2,
                Duration.ofMinutes(3));
        String external =
                checkpoints(job).path("latest").path("completed").path("external_path").asText();
        assertThat(external).startsWith("s3://flinkss/smoke/checkpoints/" + job + "/chk-");
        Path metadata = S3_DATA.resolve(external.substring("s3://".length())).resolve("_metadata");
        assertThat(metadata)
                .as("the checkpoint's _metadata object in S3Proxy's data folder")
                .exists();

        // A TaskManager dies as a crashed machine would; the job restores from S3 on the survivor.
        scripts.script(Duration.ofMinutes(1), "cluster", "kill-taskmanager", "1")
                .assertSuccess("kill-taskmanager 1");
        long killed = System.nanoTime();
        ProjectScripts.await(
                "job " + job + " FINISHED",
                () -> "FINISHED".equals(jobState(job)),
                Duration.ofMinutes(6));
        scripts.log(
                String.format(
                        "job finished %.1f s after the kill", (System.nanoTime() - killed) / 1e9));
        assertThat(checkpoints(job).path("counts").path("restored").asInt())
                .as("restores from a checkpoint")
                .isGreaterThanOrEqualTo(1);

        ProjectScripts.Result afterKill =
                scripts.script(Duration.ofMinutes(1), "cluster", "status");
        assertThat(afterKill.code())
                .as("status with a dead TaskManager\n%s", afterKill.output())
                .isEqualTo(1);
        assertThat(afterKill.output())
                .contains("taskmanager-1: NOT running")
                .contains("taskmanager-2: running");

        // Every number exactly once, in the finished part files. Besides them there may be hidden
        // _part-..._tmp_... objects: the S3 writer's copies of a part that was still open at a
        // checkpoint. Flink deletes them when a later checkpoint subsumes that one, but not the
        // one of the checkpoint a restore went back to (measured here: one after the kill).
        // Readers skip them as Hadoop and Spark do: names that start with '_' or '.'.
        List<Path> all = objectsUnder(S3_DATA.resolve("flinkss/smoke/out"));
        List<Path> objects =
                all.stream().filter(p -> p.getFileName().toString().startsWith("part-")).toList();
        List<Path> leftovers = all.stream().filter(p -> !objects.contains(p)).toList();
        assertThat(leftovers)
                .as("objects besides the part files")
                .allSatisfy(
                        p ->
                                assertThat(p.getFileName().toString())
                                        .startsWith("_part-")
                                        .contains("_tmp_"));
        scripts.log(
                "finished part files: "
                        + objects.size()
                        + ", hidden _tmp_ leftovers: "
                        + leftovers.size());
        assertThat(objects).as("part files under s3://flinkss/smoke/out").isNotEmpty();
        assertThat(objects.stream().mapToLong(ProjectScripts::size).max().orElse(0))
                .as("a part file larger than S3's 5 MiB minimum part: completed from several parts")
                .isGreaterThan(5L << 20);
        long[] counts = new long[NUMBERS];
        for (Path object : objects) {
            try (Stream<String> lines = Files.lines(object, StandardCharsets.UTF_8)) {
                lines.forEach(
                        line -> counts[Integer.parseInt(line.substring(0, line.indexOf(' ')))]++);
            }
        }
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < NUMBERS && wrong.size() < 10; i++) {
            if (counts[i] != 1) {
                wrong.add(i + " x" + counts[i]);
            }
        }
        assertThat(wrong).as("numbers not written exactly once (first 10)").isEmpty();
        try (Stream<Path> uploads = Files.list(S3_DATA.resolve("flinkss"))) {
            assertThat(
                            uploads.map(p -> p.getFileName().toString())
                                    .filter(n -> n.startsWith(".mpus-") && n.endsWith("-smoke")))
                    .as("multipart uploads left open in S3Proxy")
                    .isEmpty();
        }

        // The credentials (the local default pair; the access key is a prefix of the secret) are
        // in no log of Flink's or S3Proxy's, and in no command output.
        for (Path logs : List.of(WORK.resolve("flink/log"), WORK.resolve("s3/logs"), WORK)) {
            try (Stream<Path> files = Files.walk(logs, logs.equals(WORK) ? 1 : 3)) {
                for (Path file :
                        files.filter(
                                        f ->
                                                Files.isRegularFile(f)
                                                        && f.toString()
                                                                .matches(
                                                                        ".*\\.(log|out)(\\.\\d+)?$"))
                                .toList()) {
                    assertThat(Files.readString(file, StandardCharsets.ISO_8859_1))
                            .as("credentials in %s", file)
                            .doesNotContain("flinkss-local");
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static int completedCheckpoints(String job) {
        return checkpoints(job).path("counts").path("completed").asInt();
    }

    private static JsonNode checkpoints(String job) {
        return json(rest + "/jobs/" + job + "/checkpoints");
    }

    private static String jobState(String job) {
        String state = json(rest + "/jobs/" + job).path("state").asText();
        if (state.equals("FAILED") || state.equals("CANCELED")) {
            throw new AssertionError(
                    "job " + job + " ended " + state + "; see " + WORK.resolve("flink/log"));
        }
        return state;
    }

    private static JsonNode json(String url) {
        String body = ProjectScripts.httpGet(url);
        try {
            return body == null ? JSON.createObjectNode() : JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> objectsUnder(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
