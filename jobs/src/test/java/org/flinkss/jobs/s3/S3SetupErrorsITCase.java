package org.flinkss.jobs.s3;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.Main;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.runtime.testing.S3TestServer;
import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A wrong S3 setup fails fast, in one line that says what to check: commands run as {@code java
 * -jar} runs them, each in a JVM of its own ({@link ChildJvm}) that finds its Flink configuration
 * by the project's lookup ({@code ./flink-conf/config.yaml}): the repository's file, with only the
 * line under test changed. So the retry bounds measured are those {@code flink-conf/config.yaml}
 * ships with.
 *
 * <ul>
 *   <li>an endpoint where nothing listens (a closed port): {@code run bronze} and {@code
 *       land-events} give up within a minute (S3A's defaults retried for about 13), naming the
 *       endpoint, the path and {@code s3.endpoint} in the file read;
 *   <li>a secret the server refuses: the credentials keys, for {@code land-events} and for {@code
 *       table count} (before Delta Kernel retries and logs each attempt with its stack);
 *   <li>a bucket that does not exist: the bucket.
 * </ul>
 */
@Tag("ports")
class S3SetupErrorsITCase {

    @RegisterExtension
    static final S3TestServer.PerClass S3 = new S3TestServer.PerClass("s3-setup-errors-it");

    /**
     * Far below S3A's own defaults, which took about 13 minutes here: the run gives up well within
     * a minute on a quiet machine (JVM start included), and took 70 s at a load average of 40, so
     * the bound is three minutes, which only retries left at S3A's defaults exceed.
     */
    private static final Duration FAST = Duration.ofMinutes(3);

    @TempDir Path dir;

    @Test
    void aClosedPortFailsInSecondsNotMinutesNamingTheEndpointAndTheKeysToCheck() throws Exception {
        int closed = ProjectScripts.freePort();
        String endpoint = "http://127.0.0.1:" + closed;
        Path work = withConfig("closed", "s3.endpoint", endpoint);
        Path config = work.resolve("flink-conf/config.yaml");

        for (List<String> command :
                List.of(
                        List.of("run", "bronze", "--base", "s3://flinkss/closed"),
                        List.of(
                                "land-events",
                                "--base",
                                "s3://flinkss/closed",
                                "--batch",
                                "1",
                                "--start",
                                "0"))) {
            Failure failure = run(work, command);
            assertThat(failure.seconds)
                    .as("seconds until %s gave up:\n%s", command, failure.output)
                    .isLessThan(FAST.toSeconds());
            assertThat(failure.errorLine)
                    .as(failure.output)
                    .startsWith(
                            "error: cannot reach S3 at " + endpoint + " for s3://flinkss/closed")
                    .contains("connection refused")
                    .contains("check s3.endpoint in " + config)
                    .contains("s3.retry.limit");
        }
    }

    @Test
    void refusedCredentialsAndAMissingBucketAreOneLineEach() throws Exception {
        String endpoint = S3.server().endpoint();
        Path wrongSecret =
                withConfig(
                        "secret",
                        "s3.endpoint",
                        endpoint,
                        "s3.secret-key",
                        "not-the-secret-of-this-server");
        for (List<String> command :
                List.of(
                        List.of(
                                "land-events",
                                "--base",
                                "s3://flinkss/secret",
                                "--batch",
                                "1",
                                "--start",
                                "0"),
                        List.of(
                                "table",
                                "count",
                                "events_bronze",
                                "--warehouse",
                                "s3://flinkss/secret"))) {
            Failure refused = run(wrongSecret, command);
            assertThat(refused.errorLine)
                    .as(refused.output)
                    .startsWith(
                            "error: S3 at "
                                    + endpoint
                                    + " refused the credentials for s3://flinkss/secret")
                    .contains(
                            "check s3.access-key and s3.secret-key in "
                                    + wrongSecret.resolve("flink-conf/config.yaml"))
                    .contains("AWS_ACCESS_KEY_ID");
            assertThat(refused.output)
                    .as("the secret is never printed")
                    .doesNotContain("not-the-secret-of-this-server");
        }

        Path rightSecret = withConfig("bucket", "s3.endpoint", endpoint);
        for (List<String> command :
                List.of(
                        List.of(
                                "land-events",
                                "--base",
                                "s3://no-such-bucket/x",
                                "--batch",
                                "1",
                                "--start",
                                "0"),
                        List.of("run", "bronze", "--base", "s3://no-such-bucket/x"))) {
            Failure missing = run(rightSecret, command);
            assertThat(missing.errorLine)
                    .as("%s:\n%s", command, missing.output)
                    .startsWith(
                            "error: the bucket 'no-such-bucket' does not exist at S3 "
                                    + endpoint
                                    + " for s3://no-such-bucket/x")
                    .contains(
                            "check s3.endpoint in "
                                    + rightSecret.resolve("flink-conf/config.yaml"));
        }
    }

    // ---------------------------------------------------------------------------------------------

    private record Failure(long seconds, String errorLine, String output) {}

    /** Runs one command in a child JVM, which must fail with exit code 1 and no stack trace. */
    private Failure run(Path work, List<String> command) {
        long start = System.nanoTime();
        try (ChildJvm child =
                ChildJvm.of(Main.class)
                        .workDir(work)
                        .output(work.resolve("out-" + System.nanoTime() + ".log"))
                        .start(command.toArray(String[]::new))) {
            int code = child.waitFor(Duration.ofMinutes(15));
            long seconds = (System.nanoTime() - start) / 1_000_000_000L;
            String output = child.outputText();
            System.out.printf("%s: exit %d after %d s%n%s%n", command, code, seconds, output);
            assertThat(code).as("exit code of %s:\n%s", command, output).isEqualTo(1);
            List<String> errors = output.lines().filter(l -> l.startsWith("error: ")).toList();
            assertThat(errors).as("the error lines of %s:\n%s", command, output).hasSize(1);
            assertThat(output).as("a stack trace").doesNotContain("\tat ");
            return new Failure(seconds, errors.get(0), output);
        }
    }

    /**
     * A working directory whose {@code flink-conf/config.yaml} is the repository's with the given
     * flat keys set to the given values.
     */
    private Path withConfig(String name, String... keysAndValues) throws IOException {
        Path work = dir.resolve(name);
        Files.createDirectories(work.resolve("flink-conf"));
        List<String> lines =
                Files.readAllLines(ProjectScripts.ROOT.resolve("flink-conf/config.yaml"));
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            String replaced = line;
            for (int i = 0; i < keysAndValues.length; i += 2) {
                if (line.startsWith(keysAndValues[i] + ":")) {
                    replaced = keysAndValues[i] + ": " + keysAndValues[i + 1];
                }
            }
            out.append(replaced).append('\n');
        }
        Files.writeString(work.resolve("flink-conf/config.yaml"), out);
        return work;
    }
}
