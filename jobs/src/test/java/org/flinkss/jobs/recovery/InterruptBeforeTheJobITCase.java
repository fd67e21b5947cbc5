package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.jobs.Main;
import org.flinkss.runtime.TestPauses;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.progress.ProgressTracker;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 38 point 7: Ctrl-C (SIGINT) before a run's job starts, with the process held at that point
 * by a test pause, ends it with exit code 130 and one line that says what was interrupted, that
 * nothing was written and to run again; no temporary folder is left, the lock is free, and a rerun
 * processes every event once. Before, such an interruption said nothing at all.
 */
class InterruptBeforeTheJobITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /** What Linux reports for a JVM ended by SIGINT: 128 + 2. */
    private static final int INTERRUPTED_EXIT_CODE = 130;

    private static final int EVENTS = 500;

    @TempDir Path dir;

    @Test
    void ctrlCWhileTheRunStartsSaysNothingWasWrittenAndTheRerunProcessesEverything()
            throws Exception {
        RunOptions options = landed();

        // Step 1: the run holds its lock, its temporary folder and its embedded cluster.
        String output = interruptAt("run-before-submit", options);

        // Step 2: one line says what was interrupted, what was written, what to do.
        assertThat(output)
                .contains(
                        "query 'bronze': interrupted while starting, before its job ran; no batch"
                                + " was processed and no row written. Run it again: it starts"
                                + " where the last run ended.");
        assertThat(dir.resolve("base/_tmp/" + BronzeQuery.NAME))
                .as("the run's temporary folder")
                .doesNotExist();
        CheckpointLayout checkpoint = options.checkpointOf(BronzeQuery.NAME);
        assertThat(ProgressTracker.history(checkpoint)).as("progress").isEmpty();

        // Step 3: the rerun takes the lock and processes every event once.
        assertRerunProcessesEveryEventOnce(options, checkpoint);
    }

    @Test
    void ctrlCBeforeTheCommandStartsSaysNothingWasWritten() throws Exception {
        RunOptions options = landed();

        String output = interruptAt("command-start", options);

        assertThat(output)
                .contains(
                        "flinkss run: interrupted while starting, before it did anything; nothing"
                                + " was written. Run it again.");
        assertThat(dir.resolve("base/_cp")).as("checkpoints").doesNotExist();
        assertRerunProcessesEveryEventOnce(options, options.checkpointOf(BronzeQuery.NAME));
    }

    // ---------------------------------------------------------------------------------------------

    /** The options of a base where one file of the course's events has landed. */
    private RunOptions landed() throws Exception {
        RunOptions options =
                RunOptions.builder()
                        .base(Storage.location(dir.resolve("base").toFile()))
                        .parallelism(1)
                        .printProgress(false)
                        .build();
        BronzeInput.land(options, 1, EVENTS);
        return options;
    }

    /** Runs bronze in a child JVM held at {@code point}, sends it SIGINT there: its output. */
    private String interruptAt(String point, RunOptions options) throws Exception {
        ChildJvm.Launcher launcher =
                ChildJvm.of(Main.class)
                        .interruptible()
                        .jvmOption("-D" + TestPauses.PROPERTY + "=" + point)
                        .workDir(dir.resolve("child"))
                        .tmpDir(dir.resolve("child-tmp"))
                        .output(dir.resolve(point + ".log"));
        String[] args = {
            "run", BronzeQuery.NAME, "--base", options.base().toString(), "--parallelism", "1"
        };
        try (ChildJvm child = launcher.start(args)) {
            assertThat(
                            child.await(
                                    "pause at " + point,
                                    () -> child.outputText().contains(TestPauses.PAUSED + point),
                                    Duration.ofSeconds(90)))
                    .as("the run paused at %s; output:%n%s", point, child.outputText())
                    .isTrue();
            Process kill = new ProcessBuilder("kill", "-INT", Long.toString(child.pid())).start();
            assertThat(kill.waitFor()).isZero();
            int code = child.waitFor(Duration.ofSeconds(60));
            String output = child.outputText();
            System.out.println("===== interrupted at " + point + " =====\n" + output);
            assertThat(code).as(output).isEqualTo(INTERRUPTED_EXIT_CODE);
            assertThat(output.lines().filter(l -> l.contains("interrupted")))
                    .as("one line says it")
                    .hasSize(1);
            return output;
        }
    }

    private static void assertRerunProcessesEveryEventOnce(
            RunOptions options, CheckpointLayout checkpoint) throws Exception {
        BronzeInput.assertExactlyOnceAfterARerun(options, checkpoint, EVENTS);
        assertThat(ProgressTracker.history(checkpoint)).as("batches").hasSize(1);
    }
}
