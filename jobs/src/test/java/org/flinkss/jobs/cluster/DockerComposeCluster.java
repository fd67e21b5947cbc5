package org.flinkss.jobs.cluster;

import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code docker/docker-compose.yml} brought up and down from a test: a compose project of its own
 * name (so a user's {@code docker-compose up} is left alone), free host ports for the REST API,
 * S3Proxy and Kafka, and {@code docker-compose down -v} on every way out, a killed test JVM
 * included (a shutdown hook), so that no container or volume outlives the test.
 *
 * <pre>{@code
 * String reason = DockerComposeCluster.engineUnavailable(scripts);
 * assumeTrue(reason == null, reason);
 * scripts.script(Duration.ofMinutes(40), "docker-images").assertSuccess("scripts/docker-images");
 * try (DockerComposeCluster cluster = DockerComposeCluster.up(scripts, "flinkss-it", Duration.ofMinutes(5))) {
 *     cluster.exec("client", "flink", "run", "-m", "jobmanager:8081", ...);
 *     cluster.killContainer(cluster.containerId("taskmanager-1"));
 * }
 * DockerComposeCluster.stopEngineIfStarted(scripts);
 * }</pre>
 */
final class DockerComposeCluster implements AutoCloseable {

    static final Path COMPOSE_FILE = ProjectScripts.ROOT.resolve("docker/docker-compose.yml");

    /** The local default credentials (flink-conf/config.yaml, the s3proxy service). */
    static final String S3_CREDENTIALS = "flinkss-local:flinkss-local-secret";

    private static boolean engineStartedHere;

    private final ProjectScripts scripts;
    private final String project;
    private final int restPort;
    private final int s3Port;
    private final int kafkaPort;
    private final Thread downOnExit;
    private boolean down;

    private DockerComposeCluster(ProjectScripts scripts, String project) {
        this.scripts = scripts;
        this.project = project;
        this.restPort = ProjectScripts.freePort();
        this.s3Port = ProjectScripts.freePort();
        this.kafkaPort = ProjectScripts.freePort();
        scripts.env("FLINKSS_REST_HOST_PORT", String.valueOf(restPort))
                .env("FLINKSS_S3_HOST_PORT", String.valueOf(s3Port))
                .env("FLINKSS_KAFKA_HOST_PORT", String.valueOf(kafkaPort))
                // The images' local default credentials, whatever the caller's environment says.
                .env("AWS_ACCESS_KEY_ID", "")
                .env("AWS_SECRET_ACCESS_KEY", "");
        this.downOnExit = new Thread(this::downQuietly, "docker-compose-down-" + project);
    }

    /**
     * Null when a Docker engine answers (started with {@code scripts/dockerd start} if none did;
     * that one is stopped again by {@link #stopEngineIfStarted}), else why none can be used, fit
     * for an assumption's message.
     */
    static String engineUnavailable(ProjectScripts scripts) {
        if (!ProjectScripts.onPath("docker-compose")) {
            return "docker-compose is not on the PATH (Debian: apt-get install docker-compose"
                    + " docker.io; scripts/dockerd start --install installs both)";
        }
        if (!Files.isExecutable(Path.of("/usr/bin/docker")) && !ProjectScripts.onPath("docker")) {
            return "no docker client (Debian: apt-get install docker.io; scripts/dockerd start"
                    + " --install installs it)";
        }
        ProjectScripts.Result before = scripts.script(Duration.ofMinutes(1), "dockerd", "status");
        if (before.code() == 0) {
            return null;
        }
        ProjectScripts.Result start = scripts.script(Duration.ofMinutes(3), "dockerd", "start");
        if (start.code() != 0) {
            return "no Docker engine runs and scripts/dockerd start could not start one: "
                    + start.output().strip().lines().reduce((a, b) -> b).orElse("(no output)");
        }
        engineStartedHere = start.output().contains("dockerd up in");
        return null;
    }

    /** Stops the engine that {@link #engineUnavailable} started, if it did. */
    static void stopEngineIfStarted(ProjectScripts scripts) {
        if (engineStartedHere) {
            engineStartedHere = false;
            scripts.script(Duration.ofMinutes(3), "dockerd", "stop");
        }
    }

    /**
     * {@code docker-compose -p <project> up -d}, then waits until the JobManager's REST API lists
     * both TaskManagers. On any failure the services' logs are printed and everything is brought
     * down before the exception leaves.
     */
    static DockerComposeCluster up(ProjectScripts scripts, String project, Duration timeout) {
        DockerComposeCluster cluster = new DockerComposeCluster(scripts, project);
        Runtime.getRuntime().addShutdownHook(cluster.downOnExit);
        try {
            // A project of the same name left by a killed run goes first.
            cluster.compose(
                    Duration.ofMinutes(3), "down", "-v", "--remove-orphans", "--timeout", "5");
            cluster.compose(timeout, "up", "-d")
                    .assertSuccess("docker-compose -p " + project + " up -d");
            ProjectScripts.await(
                    "2 TaskManagers registered at " + cluster.restUrl(),
                    () -> {
                        String overview = ProjectScripts.httpGet(cluster.restUrl() + "/overview");
                        return overview != null && overview.contains("\"taskmanagers\":2");
                    },
                    timeout);
            return cluster;
        } catch (RuntimeException | Error e) {
            scripts.log("docker-compose logs:\n" + cluster.logs());
            cluster.close();
            throw e;
        }
    }

    String restUrl() {
        return "http://127.0.0.1:" + restPort;
    }

    String s3Url() {
        return "http://127.0.0.1:" + s3Port;
    }

    int kafkaHostPort() {
        return kafkaPort;
    }

    /** {@code docker-compose -p <project> -f docker/docker-compose.yml <args>}. */
    ProjectScripts.Result compose(Duration timeout, String... args) {
        List<String> command =
                new ArrayList<>(
                        List.of("docker-compose", "-p", project, "-f", COMPOSE_FILE.toString()));
        command.addAll(Arrays.asList(args));
        return scripts.run(timeout, command.toArray(String[]::new));
    }

    /** A command in a running service's container ({@code exec -T}, no terminal). */
    ProjectScripts.Result exec(String service, String... command) {
        return exec(Duration.ofMinutes(5), service, command);
    }

    /** As {@link #exec(String, String...)}, killed after {@code timeout}. */
    ProjectScripts.Result exec(Duration timeout, String service, String... command) {
        String[] args = execArgs(service, command);
        return scripts.run(timeout, args);
    }

    /**
     * A process that runs a command in a service's container, not yet started (for commands that
     * run while the test does something else): both streams into one, as {@link #exec}.
     */
    ProcessBuilder execBuilder(String service, String... command) {
        return scripts.builder(execArgs(service, command));
    }

    private String[] execArgs(String service, String... command) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "docker-compose",
                                "-p",
                                project,
                                "-f",
                                COMPOSE_FILE.toString(),
                                "exec",
                                "-T",
                                service));
        args.addAll(Arrays.asList(command));
        return args.toArray(String[]::new);
    }

    /** The id of a service's container, for {@link #killContainer}. */
    String containerId(String service) {
        String id =
                compose(Duration.ofMinutes(1), "ps", "-q", service)
                        .assertSuccess("docker-compose ps -q " + service)
                        .output()
                        .strip();
        if (id.isEmpty()) {
            throw new AssertionError("docker-compose ps -q " + service + " names no container");
        }
        return id;
    }

    /**
     * SIGKILL to one container, as a crashed machine, through Docker's own client: at once, where
     * {@code docker-compose kill} (a Python program) took 9.5-9.8 s to start and deliver it under
     * CI's load, long enough for a short job to end before its TaskManager died.
     */
    void killContainer(String id) {
        scripts.run(Duration.ofMinutes(1), docker(), "kill", id).assertSuccess("docker kill " + id);
    }

    /** Copies a host file into a service's container (docker-compose 1.29 has no cp). */
    void copyInto(String service, Path file, String containerPath) {
        String id = containerId(service);
        scripts.run(
                        Duration.ofMinutes(2),
                        docker(),
                        "cp",
                        file.toString(),
                        id + ":" + containerPath)
                .assertSuccess("docker cp");
    }

    /**
     * HTTP status of a signed (AWS signature v4) request to S3Proxy's host port, with the local
     * default credentials passed to curl on its standard input, never on a command line.
     */
    int s3Status(String method, String path) {
        try {
            Process curl =
                    scripts.builder(
                                    "curl",
                                    "-sS",
                                    "-o",
                                    "/dev/null",
                                    "-w",
                                    "%{http_code}",
                                    "--max-time",
                                    "10",
                                    "-K",
                                    "-",
                                    "--aws-sigv4",
                                    "aws:amz:us-east-1:s3",
                                    "-H",
                                    "x-amz-content-sha256: UNSIGNED-PAYLOAD",
                                    "-X",
                                    method,
                                    s3Url() + path)
                            .redirectErrorStream(false)
                            .start();
            try (OutputStream in = curl.getOutputStream()) {
                in.write(("user = \"" + S3_CREDENTIALS + "\"\n").getBytes(StandardCharsets.UTF_8));
            }
            String out =
                    new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                            .strip();
            if (!curl.waitFor(30, TimeUnit.SECONDS)) {
                curl.destroyForcibly();
                throw new AssertionError("curl " + method + " " + path + " did not end");
            }
            return out.isEmpty() ? -1 : Integer.parseInt(out);
        } catch (IOException e) {
            throw new AssertionError("cannot run curl: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The last lines of every service's log. */
    String logs() {
        return compose(Duration.ofMinutes(2), "logs", "--no-color", "--tail", "60").output();
    }

    @Override
    public void close() {
        downQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(downOnExit);
        } catch (IllegalStateException e) {
            // The JVM is shutting down: the hook runs (or ran) downQuietly itself.
        }
    }

    private synchronized void downQuietly() {
        if (down) {
            return;
        }
        down = true;
        try {
            compose(Duration.ofMinutes(3), "down", "-v", "--remove-orphans", "--timeout", "10");
        } catch (RuntimeException | Error e) {
            System.err.println("docker-compose -p " + project + " down failed: " + e);
        }
    }

    private static String docker() {
        return Files.isExecutable(Path.of("/usr/bin/docker")) ? "/usr/bin/docker" : "docker";
    }
}
