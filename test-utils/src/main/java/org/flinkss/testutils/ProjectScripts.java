package org.flinkss.testutils;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Runs the project's scripts ({@code scripts/s3}, {@code scripts/cluster}, {@code scripts/kafka},
 * {@code scripts/docker-images}, ...) from tests: each command's output goes to its own numbered
 * log file in a work folder, with a time limit, and comes back as a {@link Result}.
 */
public final class ProjectScripts {

    public static final Path ROOT = projectRoot();

    private final Path work;
    private final String name;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private int commands;

    /**
     * @param work where the command logs go; {@code name} prefixes the progress lines.
     */
    public ProjectScripts(Path work, String name) {
        this.work = work;
        this.name = name;
        // The cluster tests start their clusters beside the docker-compose test, on 2 cores: in
        // one CI run the third TaskManager of three had not registered after the default 120 s.
        environment.put("FLINKSS_CLUSTER_TIMEOUT", "300");
    }

    /** An environment variable for every later command (an empty value removes the variable). */
    public ProjectScripts env(String key, String value) {
        environment.put(key, value);
        return this;
    }

    public record Result(int code, String output) {
        public Result assertSuccess(String what) {
            if (code != 0) {
                throw new AssertionError(what + " exited " + code + ":\n" + output);
            }
            return this;
        }
    }

    /** Runs a project script ({@code scripts/<script>}) to its end. */
    public Result script(Duration timeout, String script, String... args) {
        String[] command = new String[args.length + 1];
        command[0] = ROOT.resolve("scripts").resolve(script).toString();
        System.arraycopy(args, 0, command, 1, args.length);
        return run(timeout, command);
    }

    /** Runs a command to its end (killed after the timeout), both streams into one log file. */
    public Result run(Duration timeout, String... command) {
        Path log =
                work.resolve(
                        String.format(
                                "%02d-%s.log", ++commands, Paths.get(command[0]).getFileName()));
        long started = System.nanoTime();
        try {
            Files.createDirectories(work);
            Process process = builder(command).redirectOutput(log.toFile()).start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
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
                            "%5.1fs  exit %d  %s",
                            (System.nanoTime() - started) / 1e9,
                            process.exitValue(),
                            String.join(
                                    " ",
                                    Arrays.copyOfRange(command, 0, Math.min(command.length, 8)))));
            return new Result(process.exitValue(), read(log));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + String.join(" ", command), e);
        }
    }

    public ProcessBuilder builder(String... command) {
        ProcessBuilder builder =
                new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true);
        // The scripts' own installations and configuration unless a test names others.
        builder.environment().remove("FLINK_HOME");
        builder.environment().remove("FLINK_CONF_DIR");
        environment.forEach(
                (k, v) -> {
                    if (v.isEmpty()) {
                        builder.environment().remove(k);
                    } else {
                        builder.environment().put(k, v);
                    }
                });
        return builder;
    }

    public void log(String line) {
        System.out.printf("[%s] %s%n", name, line);
    }

    public static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    public static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A TCP port that is free on 127.0.0.1 right now, below the system's ephemeral range: a port
     * the system hands out (to a TaskManager's RPC or data port, say, of a test running beside this
     * one) could be taken between this choice and its use, as one was from a docker-compose service
     * in a CI run. Random in [{@value #FIRST_CHOSEN_PORT}, the range's start), tried until one
     * binds; the system's choice only if none does.
     */
    public static int freePort() {
        int below = ephemeralRangeStart();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; below > FIRST_CHOSEN_PORT && attempt < 200; attempt++) {
            int port = bind(random.nextInt(FIRST_CHOSEN_PORT, below));
            if (port > 0) {
                return port;
            }
        }
        int port = bind(0);
        if (port > 0) {
            return port;
        }
        throw new UncheckedIOException(new IOException("no TCP port is free on 127.0.0.1"));
    }

    /** The lowest port {@link #freePort} chooses: above the well-known ports tests use. */
    private static final int FIRST_CHOSEN_PORT = 20_000;

    /** Whether {@code port} is free on 127.0.0.1 right now. */
    public static boolean isFree(int port) {
        return bind(port) > 0;
    }

    /**
     * Binds {@code port} on 127.0.0.1 (0: one the system chooses) and lets it go: the port bound,
     * or -1 when it is taken.
     */
    private static int bind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return socket.getLocalPort();
        } catch (IOException e) {
            return -1;
        }
    }

    /** The first port of Linux's ephemeral range, or 32768 (its default) where it is not told. */
    private static int ephemeralRangeStart() {
        try {
            String range =
                    Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    /** The body of a GET, or null when nothing answers (or not with 200). */
    public static String httpGet(String url) {
        try {
            HttpResponse<String> response =
                    HttpClient.newBuilder()
                            .connectTimeout(Duration.ofSeconds(3))
                            .build()
                            .send(
                                    HttpRequest.newBuilder(URI.create(url))
                                            .timeout(Duration.ofSeconds(5))
                                            .GET()
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    public static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Paths.get(dir, command))) {
                return true;
            }
        }
        return false;
    }

    public static void await(String what, BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
        }
    }

    private static Path projectRoot() {
        for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("scripts/cluster"))
                    && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        throw new IllegalStateException(
                "no project root (a folder with scripts/cluster) above "
                        + Paths.get("").toAbsolutePath());
    }
}
