package org.flinkss.runtime.testing;

import org.assertj.core.api.Assertions;

import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressTracker;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * A {@code main} class run in a child JVM with the test's classpath, so that a test can do what
 * users do to a process: let it exit, or kill it with {@code kill -9} at any moment.
 *
 * <p>The child gets the JVM options a Flink job needs on Java 17 ({@code --add-opens}), a heap of 1
 * GB, the JIT and collector {@code scripts/flinkss} gives a run that stops by itself (C1 only and
 * the serial collector: a child lives seconds, and C2's compilations and G1's threads would take
 * the CPU the other tests of the suite need; {@link Launcher#jvmOption} comes after them), its own
 * {@code java.io.tmpdir} (each embedded MiniCluster leaves ~40 MB there, and a killed one never
 * cleans up), the test's log4j configuration, and no {@code FLINK_CONF_DIR}, so it runs with the
 * same Flink settings as the test's in-process runs. Everything it prints, both streams, goes to
 * one output file.
 *
 * <pre>{@code
 * ChildJvm child = ChildJvm.of(Main.class).workDir(dir).output(dir.resolve("run-1.log")).start("run", "bronze", ...);
 * child.kill9();   // or: int code = child.waitFor(Duration.ofMinutes(1));
 * }</pre>
 */
public final class ChildJvm implements AutoCloseable {

    /** What Linux reports for a process ended by SIGKILL: 128 + 9. */
    public static final int KILLED_EXIT_CODE = 137;

    private final Process process;
    private final Path output;
    private final List<String> command;
    private final String mainClass;

    private ChildJvm(Process process, Path output, List<String> command, String mainClass) {
        this.process = process;
        this.output = output;
        this.command = command;
        this.mainClass = mainClass;
    }

    public static Launcher of(Class<?> mainClass) {
        return new Launcher(mainClass);
    }

    /** How to start a child JVM; {@link #start} may be called more than once. */
    public static final class Launcher {
        private final Class<?> mainClass;
        private Path workDir = Paths.get(".").toAbsolutePath().normalize();
        private Path output;
        private Path tmpDir;
        private String maxHeap = "1g";
        private final List<String> jvmOptions = new ArrayList<>();
        private boolean interruptible;

        private Launcher(Class<?> mainClass) {
            this.mainClass = mainClass;
        }

        /**
         * The child's working directory; its {@code java.io.tmpdir} is {@code <workDir>/tmp} unless
         * set.
         */
        public Launcher workDir(Path dir) {
            this.workDir = dir.toAbsolutePath().normalize();
            return this;
        }

        /** The file that receives the child's stdout and stderr (replaced at each start). */
        public Launcher output(Path file) {
            this.output = file.toAbsolutePath().normalize();
            return this;
        }

        public Launcher tmpDir(Path dir) {
            this.tmpDir = dir.toAbsolutePath().normalize();
            return this;
        }

        public Launcher maxHeap(String size) {
            this.maxHeap = size;
            return this;
        }

        public Launcher jvmOption(String option) {
            this.jvmOptions.add(option);
            return this;
        }

        /**
         * The child answers SIGINT (Ctrl-C) even when this JVM was started with SIGINT ignored (a
         * background job of a non-interactive shell, as under {@code nohup ... &}): a JVM that
         * inherits an ignored SIGINT installs no handler for it, so its shutdown hooks never run.
         * perl (Debian's essential perl-base) restores the default disposition and execs the JVM in
         * its place, same pid.
         */
        public Launcher interruptible() {
            this.interruptible = true;
            return this;
        }

        public ChildJvm start(String... args) {
            Path out =
                    output != null
                            ? output
                            : workDir.resolve("child-" + System.nanoTime() + ".log");
            Path tmp = tmpDir != null ? tmpDir : workDir.resolve("tmp");
            List<String> command = new ArrayList<>();
            if (interruptible) {
                command.addAll(
                        List.of(
                                "perl",
                                "-e",
                                "$SIG{INT} = 'DEFAULT'; exec @ARGV or die \"exec: $!\""));
            }
            command.add(javaExecutable());
            command.add("-Xmx" + maxHeap);
            command.add("--add-opens=java.base/java.util=ALL-UNNAMED");
            command.add("--add-opens=java.base/java.lang=ALL-UNNAMED");
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-XX:+UseSerialGC");
            command.add("-Djava.io.tmpdir=" + tmp);
            log4jConfiguration()
                    .ifPresent(file -> command.add("-Dlog4j.configurationFile=" + file));
            command.addAll(jvmOptions);
            command.add("-cp");
            command.add(testClassPath());
            command.add(mainClass.getName());
            command.addAll(Arrays.asList(args));
            try {
                Files.createDirectories(workDir);
                Files.createDirectories(tmp);
                Files.createDirectories(out.getParent());
                ProcessBuilder builder =
                        new ProcessBuilder(command)
                                .directory(workDir.toFile())
                                .redirectErrorStream(true)
                                .redirectOutput(out.toFile());
                // The child must not pick up a Flink configuration that the test JVM does not use.
                builder.environment().remove("FLINK_CONF_DIR");
                return new ChildJvm(builder.start(), out, command, mainClass.getName());
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot start " + String.join(" ", command) + ": " + e.getMessage(), e);
            }
        }
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path output() {
        return output;
    }

    public List<String> command() {
        return command;
    }

    /** Everything the child has printed so far. */
    public String outputText() {
        try {
            return Files.exists(output) ? Files.readString(output, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + output + ": " + e.getMessage() + ")";
        }
    }

    /**
     * How many times its timeout a wait on a child may take ({@code -Dflinkss.test.slack}, 3 by
     * default). The timeouts catch a child that hangs, not a slow one: under a load of 28 on the
     * 2-core build machine a bronze run of 10,000 events took its whole 2 minutes (ChaosITCase) and
     * a killed run's rerun its 90 s (BronzeKillRecoveryITCase), both ending with the right tables.
     */
    static final int SLACK = Integer.getInteger("flinkss.test.slack", 3);

    static Duration withSlack(Duration timeout) {
        return timeout.multipliedBy(SLACK);
    }

    /**
     * Waits for the child to exit and returns its exit code; kills it if it outlives the timeout.
     */
    public int waitFor(Duration timeout) {
        Duration slack = withSlack(timeout);
        try {
            if (!process.waitFor(slack.toMillis(), TimeUnit.MILLISECONDS)) {
                kill9();
                throw new AssertionError(
                        "child JVM (pid "
                                + pid()
                                + ") did not exit within "
                                + slack
                                + " ("
                                + timeout
                                + " times the tests' slack, "
                                + SLACK
                                + "); killed it. Its output:\n"
                                + outputText());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill9();
            throw new AssertionError("interrupted while waiting for child JVM pid " + pid(), e);
        }
    }

    /**
     * {@code kill -9}: on Linux {@link Process#destroyForcibly()} sends SIGKILL, so the child gets
     * no chance to run shutdown hooks, flush or release anything but what the OS releases. Returns
     * once the process is gone, with its exit code ({@value #KILLED_EXIT_CODE} if the signal ended
     * it, or the code it exited with if it was faster).
     */
    public int kill9() {
        ProcessHandle handle = process.toHandle();
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("child JVM pid " + pid() + " survived SIGKILL for 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while killing child JVM pid " + pid(), e);
        }
        if (handle.isAlive() || ProcessHandle.of(pid()).map(ProcessHandle::isAlive).orElse(false)) {
            throw new AssertionError("child JVM pid " + pid() + " is still alive after SIGKILL");
        }
        return process.exitValue();
    }

    /**
     * Runs a command line in child JVMs until one run finishes by itself: each of the first {@code
     * kills} runs that commits a new batch is killed with SIGKILL a seeded 0 to {@code
     * maxExtraMillis} ms after that commit, and the next run restores. Each run's output goes to
     * {@code logs/run-N.log}, listed in {@code outputs}; what happens goes to {@code note}, with
     * {@code atKill}'s description of the moment. The last run must exit 0, within {@code timeout}.
     * Returns the kills that hit a running process.
     */
    public static int runKilledAfterCommits(
            Launcher launcher,
            String[] args,
            CheckpointLayout checkpoint,
            int kills,
            Random random,
            int maxExtraMillis,
            Duration timeout,
            Path logs,
            List<Path> outputs,
            Consumer<String> note,
            Supplier<String> atKill)
            throws InterruptedException {
        int killed = 0;
        for (int attempt = 1; ; attempt++) {
            Assertions.assertThat(attempt).as("runs needed").isLessThanOrEqualTo(kills + 1);
            Path output = logs.resolve("run-" + attempt + ".log");
            outputs.add(output);
            int before = ProgressTracker.history(checkpoint).size();
            try (ChildJvm child = launcher.output(output).start(args)) {
                note.accept(
                        "run "
                                + attempt
                                + ": pid "
                                + child.pid()
                                + ", "
                                + before
                                + " batches committed so far");
                if (killed < kills && child.awaitNewBatch(checkpoint, before, timeout)) {
                    int extra = random.nextInt(maxExtraMillis);
                    Thread.sleep(extra);
                    if (child.isAlive()) {
                        int code = child.kill9();
                        if (code == 0) {
                            // It finished by itself between isAlive and the signal: a finished
                            // run, not a kill.
                            note.accept("run " + attempt + ": finished as the kill was sent");
                            return killed;
                        }
                        killed++;
                        note.accept(
                                "run "
                                        + attempt
                                        + ": kill -9 #"
                                        + killed
                                        + " "
                                        + extra
                                        + " ms after a commit, exit code "
                                        + code
                                        + ", "
                                        + ProgressTracker.history(checkpoint).size()
                                        + " batches in the log, "
                                        + atKill.get()
                                        + "; its last line: "
                                        + lastLine(child.outputText()));
                        Assertions.assertThat(code)
                                .as("exit code of a process ended by SIGKILL")
                                .isEqualTo(KILLED_EXIT_CODE);
                        Assertions.assertThat(child.isAlive()).isFalse();
                        continue;
                    }
                    note.accept("run " + attempt + ": finished before the kill");
                }
                int code = child.waitFor(timeout);
                note.accept(
                        "run "
                                + attempt
                                + ": exited "
                                + code
                                + ": "
                                + lastLine(child.outputText()));
                Assertions.assertThat(code)
                        .as("exit code of run %d; its output:%n%s", attempt, child.outputText())
                        .isZero();
                return killed;
            }
        }
    }

    private static String lastLine(String output) {
        String[] lines = output.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1];
    }

    /**
     * Waits until the query's progress log under {@code checkpoint} has more than {@code before}
     * batches: false if this child exited first; fails the test if nothing comes within the
     * timeout.
     */
    public boolean awaitNewBatch(CheckpointLayout checkpoint, int before, Duration timeout)
            throws InterruptedException {
        return await(
                "a batch committed",
                () -> ProgressTracker.history(checkpoint).size() > before,
                timeout);
    }

    /**
     * Waits until {@code done} holds: false if this child exited without it holding; fails the
     * test, naming {@code what} and giving the child's output, if it does not hold within the
     * timeout.
     */
    public boolean await(String what, BooleanSupplier done, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + withSlack(timeout).toNanos();
        while (System.nanoTime() < deadline) {
            if (done.getAsBoolean()) {
                return true;
            }
            if (!isAlive()) {
                // It may have made done hold on its way out, after the check above.
                return done.getAsBoolean();
            }
            Thread.sleep(20);
        }
        throw new AssertionError(
                "no "
                        + what
                        + " within "
                        + withSlack(timeout)
                        + " ("
                        + timeout
                        + " times the tests' slack, "
                        + SLACK
                        + ") by "
                        + this
                        + "; its output:\n"
                        + outputText());
    }

    /** Never leaves a child behind, whatever happened in the test. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill9();
        }
    }

    public static String javaExecutable() {
        Optional<String> current = ProcessHandle.current().info().command();
        if (current.isPresent() && Files.isExecutable(Paths.get(current.get()))) {
            return current.get();
        }
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * The test's real classpath. Surefire and failsafe start the test JVM from a manifest-only jar
     * whose {@code Class-Path} lists the real entries, so {@code java.class.path} may name that jar
     * only; they also put the real classpath in {@code surefire.test.class.path}. Without either, a
     * manifest-only jar is expanded here.
     */
    public static String testClassPath() {
        String classPath = System.getProperty("surefire.test.class.path");
        if (classPath == null || classPath.isBlank()) {
            classPath = System.getProperty("java.class.path");
        }
        List<String> entries = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                entries.addAll(expandManifestOnlyJar(entry));
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static List<String> expandManifestOnlyJar(String entry) {
        Path path = Paths.get(entry);
        if (!entry.endsWith(".jar") || !Files.isRegularFile(path)) {
            return List.of(entry);
        }
        try (JarFile jar = new JarFile(path.toFile())) {
            Manifest manifest = jar.getManifest();
            String manifestClassPath =
                    manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
            if (manifestClassPath == null
                    || !path.getFileName().toString().startsWith("surefire")) {
                return List.of(entry);
            }
            URL base = path.toUri().toURL();
            List<String> expanded = new ArrayList<>();
            for (String relative : manifestClassPath.trim().split("\\s+")) {
                expanded.add(Paths.get(new URL(base, relative).toURI()).toString());
            }
            return expanded;
        } catch (IOException | URISyntaxException e) {
            return List.of(entry);
        }
    }

    /** The test's own log4j configuration (WARN, org.flinkss at INFO), if it is a file. */
    private static Optional<String> log4jConfiguration() {
        URL url = ChildJvm.class.getResource("/log4j2-test.properties");
        if (url == null || !"file".equals(url.getProtocol())) {
            return Optional.empty();
        }
        try {
            return Optional.of(Paths.get(url.toURI()).toString());
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "child JVM pid " + pid() + " running " + mainClass;
    }
}
