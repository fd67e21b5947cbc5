package org.flinkss.jobs.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.testutils.ProjectScripts;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A successful command says what it did on stdout and nothing on stderr, up to its exit: ten runs
 * of the runnable jar, as a user starts them ({@code java -jar}), five times landing a batch and
 * running bronze over it. Each one starts an embedded cluster (the generator's job too) and exits
 * right after its job; before the exit waited for those clusters to shut down ({@code
 * EmbeddedClusters}), about one such run in twenty printed a {@code NoClassDefFoundError} from
 * Pekko's shutdown hook ({@code flink-shutdown-hook-1}) after its summary, exit code 0. About one
 * run in a hundred also got Flink's warning that an RPC endpoint's stopped executor ignored a
 * heartbeat ("The scheduled executor service is shutdown ..."), quieted by name in the jar's
 * logging (CommandLineLoggingTest).
 */
// Cluster-free: no tag; it runs among the other integration tests (2-3.5 minutes in CI; the root
// pom says how the JVMs share the classes).
class CleanExitITCase {

    private static final Path JAR = ProjectScripts.ROOT.resolve("jobs/target/flinkss-jobs.jar");

    @TempDir Path dir;

    /** Main's line when the embedded cluster took longer to shut down than the exit waits. */
    private static final String SLOW_SHUTDOWN_NOTICE =
            "(?m)^warning: Flink's embedded cluster did not shut down within \\d+ s; exiting"
                    + " anyway\\R";

    private record Run(List<String> args, int code, String out, String err) {}

    private Run jar(int n, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // One temporary folder for all runs: the kept copy of Flink's RPC jar is made once.
        command.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")));
        command.add("-jar");
        command.add(JAR.toString());
        command.addAll(List.of(args));
        Path out = dir.resolve("run-" + n + ".out");
        Path err = dir.resolve("run-" + n + ".err");
        Process process =
                new ProcessBuilder(command)
                        .directory(dir.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).as("%s ended", command).isTrue();
        return new Run(
                List.of(args),
                process.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void tenSuccessfulRunsOfTheJarPrintNothingOnStderr() throws Exception {
        String base = dir.resolve("base").toString();
        List<Run> runs = new ArrayList<>();
        for (int batch = 1; batch <= 5; batch++) {
            runs.add(
                    jar(
                            runs.size(),
                            "land-events",
                            "--base",
                            base,
                            "--batch",
                            "" + batch,
                            "--start",
                            "" + (batch - 1) * 500));
            runs.add(jar(runs.size(), "run", "bronze", "--base", base, "--quiet"));
        }

        assertThat(runs).hasSize(10);
        for (Run run : runs) {
            assertThat(run.code).as("%s: exit code; stderr: %s", run.args, run.err).isZero();
            assertThat(run.err).as("%s: stderr", run.args).isEmpty();
        }
        // And each did its work: five batches landed, each read by one run of bronze.
        for (int i = 0; i < 10; i += 2) {
            assertThat(runs.get(i).out).startsWith("landed 500 events");
            assertThat(runs.get(i + 1).out).contains("bronze: 1 batch, 500 rows read");
        }
    }

    /**
     * A run of many short batches exits as soon as its job ends. Each batch asks the embedded
     * cluster for a checkpoint through its REST API, and the cluster's shutdown waits for every
     * answer nobody read: the request for the batch before the last, made just before the run's
     * stop, was read only once the job had ended, when the cluster no longer answered, and the exit
     * waited its 30 s and said so on stderr (each of three 50-batch runs of bronze did).
     */
    @Test
    void aRunOfFortyBatchesExitsWithoutWaitingForItsCluster() throws Exception {
        Path base = dir.resolve("many");
        for (int batch = 1; batch <= 40; batch++) {
            EventFiles.writeBatch(
                    Storage.location(base.resolve("events").toFile()),
                    batch,
                    EventGenerator.events((batch - 1) * 25L, 25));
        }

        Run run =
                jar(
                        0,
                        "run",
                        "bronze",
                        "--base",
                        base.toString(),
                        "--max-files-per-trigger",
                        "1",
                        "--quiet");

        assertThat(run.code).as("exit code; stderr: %s", run.err).isZero();
        assertThat(run.out).contains("bronze: 40 batches, 1000 rows read");
        assertThat(run.err).as("stderr").isEmpty();
    }

    /**
     * A query with RocksDB state (dedup's) prints nothing on stderr either. Flink's RocksDB backend
     * warned at every stateful operator whose state folder's path is longer than 251 characters
     * ("RocksDB instance path length exceeds limit ..., disable log relocate"): an embedded run's
     * state is under {@code
     * <base>/_tmp/<query>/<run>/minicluster_.../tm_0/tmp/job_..._op_<operator>_...}, so any base a
     * few folders deep gave it, as this test's does. The relocation it disables (RocksDB's LOG
     * beside Flink's log file) needs Flink's {@code log.file}, which an embedded run does not have:
     * there is nothing to say.
     */
    @Test
    void aStatefulQueryOnADeepBasePrintsNothingOnStderr() throws Exception {
        Path deep = dir.resolve("a-base-folder-of-a-user/some/project/with/a/rather/long/name");
        String base = deep.toString();
        List<Run> runs = new ArrayList<>();
        runs.add(jar(0, "land-events", "--base", base, "--batch", "1", "--start", "0"));
        runs.add(jar(1, "run", "bronze", "--base", base, "--quiet"));
        runs.add(jar(2, "run", "dedup", "--base", base, "--quiet"));

        for (Run run : runs) {
            assertThat(run.code).as("%s: exit code; stderr: %s", run.args, run.err).isZero();
            // What this test is about is RocksDB's warning; the exit's own notice of a cluster
            // slow to shut down says how loaded the machine is (CI, at load 20-30, once took more
            // than its 30 s after this dedup run), and the test above holds the exit to silence.
            assertThat(run.err.replaceAll(SLOW_SHUTDOWN_NOTICE, ""))
                    .as("%s: stderr", run.args)
                    .isEmpty();
        }
        assertThat(runs.get(2).out).contains("dedup: 1 batch, 500 rows read");
    }
}
