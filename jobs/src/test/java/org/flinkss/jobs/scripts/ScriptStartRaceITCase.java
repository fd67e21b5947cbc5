package org.flinkss.jobs.scripts;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.flinkss.jobs.cluster.MultiTaskManagerITCase;
import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 14, point 10: {@code scripts/kafka start} on a loaded machine said "the Kafka broker exited
 * during startup" and deleted its pid file while the broker ran on, unknown to {@code status} and
 * {@code stop}. The pid it checked was the background subshell's, whose command line is still
 * bash's until its {@code exec java}; the subshell first lists the class path, which on a loaded
 * machine takes a while.
 *
 * <p>Here that listing is slow on purpose: a {@code paste} that sleeps a second comes first on the
 * PATH. The old script fails this test every time (measured: "exited during startup", exit 1,
 * status 3, the broker left running); the scripts now wait for the exec before they judge the
 * process. The same for {@code scripts/s3}, built the same way. ({@code scripts/cluster} gets the
 * slow listing in {@link MultiTaskManagerITCase}.)
 */
@Tag("ports")
public class ScriptStartRaceITCase {

    private static final Path WORK =
            ProjectScripts.ROOT.resolve("jobs/target/script-start-race-it");
    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);

    private ProjectScripts scripts;

    @BeforeEach
    void slowClassPathListing() throws IOException {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/paste")), "no /usr/bin/paste to wrap");
        assumeTrue(
                ProjectScripts.onPath("curl"),
                "scripts/s3 needs curl (apt-get install curl; .ci/run installs it)");
        scripts =
                new ProjectScripts(WORK, "ScriptStartRaceITCase")
                        .env("PATH", slowPasteDir(WORK).toString() + ":" + System.getenv("PATH"))
                        .env("FLINKSS_KAFKA_HOME", WORK.resolve("kafka").toString())
                        .env("FLINKSS_S3_HOME", WORK.resolve("s3").toString());
    }

    @AfterEach
    void stopWhateverRuns() {
        if (scripts != null) {
            scripts.script(Duration.ofMinutes(2), "kafka", "stop");
            scripts.script(Duration.ofMinutes(1), "s3", "stop");
        }
    }

    @Test
    void kafkaStartedWhileTheClassPathListingIsSlowIsKnownToStatusAndStop() throws IOException {
        int port = freePortWithFreeControllerPort();
        ProjectScripts.Result start =
                scripts.script(START_TIMEOUT, "kafka", "start", "--port", String.valueOf(port));
        assertThat(start.code()).as("scripts/kafka start\n%s", start.output()).isZero();
        assertKnownThenStopped("kafka", WORK.resolve("kafka/run/kafka.pid"), "kafka.Kafka");
    }

    @Test
    void s3StartedWhileTheClassPathListingIsSlowIsKnownToStatusAndStop() throws IOException {
        int port = ProjectScripts.freePort();
        ProjectScripts.Result start =
                scripts.script(
                        START_TIMEOUT,
                        "s3",
                        "start",
                        "--port",
                        String.valueOf(port),
                        "--data-dir",
                        WORK.resolve("s3-data").toString());
        assertThat(start.code()).as("scripts/s3 start\n%s", start.output()).isZero();
        assertKnownThenStopped("s3", WORK.resolve("s3/run/s3proxy.pid"), "org.gaul.s3proxy.Main");
    }

    private void assertKnownThenStopped(String script, Path pidFile, String mainClass)
            throws IOException {
        assertThat(pidFile).as("the pid file of a server that runs").exists();
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        assertThat(commandLine(pid))
                .as("the recorded pid is the server's JVM")
                .contains("java")
                .contains(mainClass);

        ProjectScripts.Result status = scripts.script(Duration.ofMinutes(1), script, "status");
        assertThat(status.code()).as("scripts/%s status\n%s", script, status.output()).isZero();
        assertThat(status.output()).contains("running, pid " + pid);

        scripts.script(Duration.ofMinutes(2), script, "stop")
                .assertSuccess("scripts/" + script + " stop");
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("pid %d after stop", pid)
                .isFalse();
        assertThat(scripts.script(Duration.ofMinutes(1), script, "status").code())
                .as("status after stop: not started")
                .isEqualTo(3);
    }

    /** A folder whose {@code paste} sleeps a second before it runs the real one. */
    public static Path slowPasteDir(Path work) throws IOException {
        Path dir = work.resolve("slow-bin");
        Files.createDirectories(dir);
        Path paste = dir.resolve("paste");
        Files.writeString(
                paste,
                "#!/bin/sh\n"
                        + "# Slows the class path listings of scripts/ (ScriptStartRaceITCase).\n"
                        + "sleep 1\n"
                        + "exec /usr/bin/paste \"$@\"\n",
                StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(paste, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    private static String commandLine(long pid) throws IOException {
        return Files.readString(Path.of("/proc/" + pid + "/cmdline"), StandardCharsets.UTF_8)
                .replace('\0', ' ');
    }

    /** A free port P whose controller port P + 1000 is free too. */
    private static int freePortWithFreeControllerPort() {
        for (int i = 0; i < 50; i++) {
            int port = ProjectScripts.freePort();
            if (port + 1000 <= 65535 && ProjectScripts.isFree(port + 1000)) {
                return port;
            }
        }
        throw new AssertionError("no free port P with P + 1000 free after 50 tries");
    }
}
