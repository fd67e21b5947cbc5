package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.jobs.Main;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14, point 11: Ctrl-C (SIGINT) on a run in its own JVM says what was kept, the last
 * committed batch and where the next run resumes, and the next run indeed resumes there: every
 * event is in the table exactly once, no batch id repeats.
 */
class InterruptITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /** What Linux reports for a JVM ended by SIGINT: 128 + 2. */
    private static final int INTERRUPTED_EXIT_CODE = 130;

    private static final int FILES = 30;
    private static final int EVENTS_PER_FILE = 500;

    @TempDir Path dir;

    @Test
    void ctrlCOnAnAvailableNowRunSaysWhichBatchWasLastCommittedAndTheNextRunResumesThere()
            throws Exception {
        RunOptions options = options(dir.resolve("base"));
        BronzeInput.land(options, FILES, EVENTS_PER_FILE);
        CheckpointLayout checkpoint = options.checkpointOf(BronzeQuery.NAME);

        String output = interruptAfterACommit(checkpoint, run(options), "available-now");

        long last = lastBatchId(checkpoint);
        assertThat(output)
                .contains(
                        "bronze: interrupted; the job was cancelled. Last committed batch: " + last)
                .contains("The next run resumes from the newest completed checkpoint")
                .contains(
                        Storage.localFile(checkpoint.location(), "a test file")
                                .toPath()
                                .toString());
        assertExactlyOnceAfterARerun(options, checkpoint);
    }

    @Test
    void ctrlCOnAProcessingTimeRunStopsWithASavepointAndSaysSo() throws Exception {
        RunOptions options = options(dir.resolve("base"));
        BronzeInput.land(options, FILES, EVENTS_PER_FILE);
        CheckpointLayout checkpoint = options.checkpointOf(BronzeQuery.NAME);

        String output =
                interruptAfterACommit(
                        checkpoint,
                        run(options, "--trigger", "processing-time=1s"),
                        "processing-time");

        assertThat(output)
                .contains("bronze: interrupted; stopped with a savepoint. Last committed batch: ")
                .contains(
                        "The next run resumes from savepoint "
                                + Storage.shown(checkpoint.savepoints()))
                .doesNotContain("is unknown")
                .doesNotContain("may process committed batches again");
        assertExactlyOnceAfterARerun(options, checkpoint);
    }

    // ---------------------------------------------------------------------------------------------

    private static RunOptions options(Path base) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(1)
                .maxFilesPerTrigger(1)
                .checkpointInterval(Duration.ofMillis(500))
                .printProgress(false)
                .build();
    }

    private static String[] run(RunOptions options, String... more) {
        List<String> args =
                new java.util.ArrayList<>(
                        List.of(
                                "run",
                                BronzeQuery.NAME,
                                "--base",
                                options.base().toString(),
                                "--max-files-per-trigger",
                                "1",
                                "--parallelism",
                                "1",
                                "--checkpoint-interval",
                                "500ms",
                                "--quiet"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /** Runs {@code args} in a child JVM, sends it SIGINT after its first commit: its output. */
    private String interruptAfterACommit(CheckpointLayout checkpoint, String[] args, String name)
            throws Exception {
        ChildJvm.Launcher launcher =
                ChildJvm.of(Main.class)
                        .interruptible()
                        .workDir(dir.resolve("child"))
                        .tmpDir(dir.resolve("child-tmp"))
                        .output(dir.resolve(name + ".log"));
        try (ChildJvm child = launcher.start(args)) {
            assertThat(child.awaitNewBatch(checkpoint, 0, Duration.ofSeconds(90)))
                    .as("a batch committed before the run ended; output:%n%s", child.outputText())
                    .isTrue();
            Process kill = new ProcessBuilder("kill", "-INT", Long.toString(child.pid())).start();
            assertThat(kill.waitFor()).isZero();
            int code = child.waitFor(Duration.ofSeconds(90));
            String output = child.outputText();
            System.out.println("===== " + name + " run, interrupted =====\n" + output);
            assertThat(code).as(output).isEqualTo(INTERRUPTED_EXIT_CODE);
            return output;
        }
    }

    private static long lastBatchId(CheckpointLayout checkpoint) {
        List<com.fasterxml.jackson.databind.node.ObjectNode> history =
                ProgressTracker.history(checkpoint);
        return history.get(history.size() - 1).path("batchId").asLong();
    }

    private static void assertExactlyOnceAfterARerun(
            RunOptions options, CheckpointLayout checkpoint) throws Exception {
        BronzeInput.assertExactlyOnceAfterARerun(
                options, checkpoint, (long) FILES * EVENTS_PER_FILE);
    }
}
