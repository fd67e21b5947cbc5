package org.flinkss.sparkdiff;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Spark oracle ({@code org.flinkss.sparkdiff.oracle.SparkOracle}, module {@code
 * spark-diff/oracle}) in a JVM of its own, with Spark's class path ({@code
 * oracle/target/spark-lib}) and Spark's own Java 17 module options (read from {@code
 * JavaModuleOptions} in that class path's {@code spark-launcher} jar, in a class loader of its own,
 * so no Spark class reaches this JVM). Fed one command a line; each call waits for its answer.
 * Spark's log goes to {@code log}.
 */
final class SparkOracleProcess implements AutoCloseable {

    private static final String MAIN = "org.flinkss.sparkdiff.oracle.SparkOracle";

    private final Process process;
    private final Writer in;
    private final BufferedReader out;
    private final Path log;
    final String version;

    private SparkOracleProcess(Process process, Path log) throws IOException {
        this.process = process;
        this.log = log;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String ready = answer("start");
        this.version = ready.replaceFirst("^ready ", "");
    }

    /** Starts the oracle; {@code work} holds its scratch files, {@code log} gets Spark's output. */
    static SparkOracleProcess start(Path work, Path log) {
        Path classes = Paths.get(property("spark.oracle.classes"));
        Path lib = Paths.get(property("spark.oracle.lib"));
        if (!Files.isDirectory(lib) || !Files.isDirectory(classes)) {
            throw new IllegalStateException(
                    "the Spark oracle is not built: "
                            + classes
                            + " and "
                            + lib
                            + " must exist; run `mvn -B -pl spark-diff -am verify` (the module"
                            + " spark-diff/oracle builds them in its package phase)");
        }
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx2g");
        command.add("-XX:+UseSerialGC");
        // The oracle lives for minutes and runs small batches: C1 alone halves its CPU (measured:
        // 40 instead of 89 CPU-seconds to start and run a first round, 10 instead of 21 for later
        // ones).
        command.add("-XX:TieredStopAtLevel=1");
        command.addAll(moduleOptions(lib));
        command.add("-Djava.io.tmpdir=" + work.resolve("tmp"));
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("oracle."))
                .forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
        command.add("-cp");
        command.add(classes + File.pathSeparator + lib.resolve("*"));
        command.add(MAIN);
        command.add(work.toString());
        try {
            Files.createDirectories(work.resolve("tmp"));
            Files.createDirectories(log.getParent());
            Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
            return new SparkOracleProcess(p, log);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot start the Spark oracle (" + String.join(" ", command) + ")", e);
        }
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(
                    "system property "
                            + name
                            + " is not set: run the test through Maven (failsafe sets it), "
                            + "or pass -D"
                            + name
                            + "=... (see spark-diff/pom.xml)");
        }
        return value;
    }

    /**
     * Spark's own list of JVM options for Java 17 ({@code
     * JavaModuleOptions.defaultModuleOptionArray()}).
     */
    static List<String> moduleOptions(Path lib) {
        Path launcher;
        try (Stream<Path> jars = Files.list(lib)) {
            launcher =
                    jars.filter(p -> p.getFileName().toString().startsWith("spark-launcher_"))
                            .findFirst()
                            .orElseThrow(
                                    () ->
                                            new IllegalStateException(
                                                    "no spark-launcher jar in " + lib));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (URLClassLoader loader =
                new URLClassLoader(
                        new URL[] {launcher.toUri().toURL()},
                        ClassLoader.getPlatformClassLoader())) {
            Method options =
                    loader.loadClass("org.apache.spark.launcher.JavaModuleOptions")
                            .getMethod("defaultModuleOptionArray");
            return Arrays.asList((String[]) options.invoke(null));
        } catch (ReflectiveOperationException | IOException e) {
            throw new IllegalStateException(
                    "cannot read Spark's JavaModuleOptions from " + launcher, e);
        }
    }

    /** Sends one command and returns its answer (after {@code @oracle ok }). */
    synchronized String call(String command) {
        try {
            in.write(command + "\n");
            in.flush();
            return answer(command);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "the Spark oracle is gone (" + e.getMessage() + "); its log: " + log, e);
        }
    }

    private String answer(String command) throws IOException {
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("@oracle ok ")) {
                return line.substring("@oracle ok ".length());
            }
            if (line.startsWith("@oracle ready ")) {
                return line.substring("@oracle ".length());
            }
            if (line.startsWith("@oracle error ")) {
                throw new IllegalStateException(
                        "Spark failed on '"
                                + command
                                + "': "
                                + line.substring("@oracle error ".length())
                                + " (Spark's log: "
                                + log
                                + ")");
            }
        }
        throw new IllegalStateException(
                "the Spark oracle ended during '"
                        + command
                        + "' (exit code "
                        + (process.isAlive() ? "none yet" : process.exitValue())
                        + "); its log: "
                        + log);
    }

    @Override
    public void close() {
        try {
            in.write("quit\n");
            in.flush();
        } catch (IOException e) {
            // already gone
        }
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
