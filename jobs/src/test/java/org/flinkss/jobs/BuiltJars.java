package org.flinkss.jobs;

import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The two jars {@code mvn package} makes in {@code jobs/target}, for the tests that look inside
 * them or run them as a user does ({@code java -jar}). A build with {@code -DskipShade=true} makes
 * neither: the tests are then skipped, saying so.
 */
final class BuiltJars {

    static final Path TARGET = ProjectScripts.ROOT.resolve("jobs/target");

    /** {@code java -jar flinkss-jobs.jar <command>}: Flink inside, runs embedded. */
    static final String RUNNABLE = "flinkss-jobs.jar";

    /** {@code flink run flinkss-jobs-cluster.jar <command>}: Flink comes from the cluster. */
    static final String CLUSTER = "flinkss-jobs-cluster.jar";

    static final List<String> ALL = List.of(RUNNABLE, CLUSTER);

    private BuiltJars() {}

    /** The jar of that name, or the test is skipped when the build did not make it. */
    static Path require(String name) {
        Path jar = TARGET.resolve(name);
        assumeTrue(Files.isReadable(jar), "no " + jar + ": run mvn package (without -DskipShade)");
        return jar;
    }

    /**
     * Runs {@code java -jar <jar> <args>} in {@code dir} (its temporary files in {@code dir/tmp}),
     * asserts it exits 0 within 3 minutes, and returns its output (stdout and stderr).
     */
    static String run(Path jar, Path dir, String... args) throws Exception {
        List<String> javaArgs = new ArrayList<>(List.of("-jar", jar.toString()));
        javaArgs.addAll(List.of(args));
        return runJava(dir, javaArgs.toArray(String[]::new));
    }

    /** Runs {@code java <javaArgs>} as {@link #run} does. */
    static String runJava(Path dir, String... javaArgs) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ChildJvm.javaExecutable());
        command.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")));
        command.addAll(List.of(javaArgs));
        Path log = Files.createTempFile(dir, "jar-", ".log");
        Process p =
                new ProcessBuilder(command)
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        String what = String.join(" ", javaArgs);
        if (!p.waitFor(Duration.ofMinutes(3).toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(what + " did not end in 3 minutes");
        }
        String output = read(log);
        assertThat(p.exitValue()).as("%s exit code; output:%n%s", what, output).isZero();
        return output;
    }

    private static String read(Path log) throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }
}
