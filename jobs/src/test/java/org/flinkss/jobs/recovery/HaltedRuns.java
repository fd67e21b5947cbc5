package org.flinkss.jobs.recovery;

import org.flinkss.jobs.Main;
import org.flinkss.runtime.testing.ChildJvm;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs of the command line in a child JVM with a system property (a {@code TestPauses} halt point,
 * or none), for tests that end a process at a named point and run it again.
 */
final class HaltedRuns {

    private HaltedRuns() {}

    /**
     * Runs {@code args} in a child JVM started with {@code property}, in {@code dir}'s {@code
     * child} folders, its output kept in {@code <name>.log} and printed under {@code label}.
     *
     * @return the child's exit code ({@code TestPauses.HALT_EXIT_CODE} when it halted)
     */
    static int run(Path dir, String[] args, String property, String label, String name)
            throws Exception {
        ChildJvm.Launcher launcher =
                ChildJvm.of(Main.class)
                        .jvmOption(property)
                        .workDir(dir.resolve("child"))
                        .tmpDir(dir.resolve("child-tmp"))
                        .output(dir.resolve(name + ".log"));
        try (ChildJvm child = launcher.start(args)) {
            int code = child.waitFor(Duration.ofMinutes(3));
            System.out.println("===== " + label + ", " + name + " =====\n" + child.outputText());
            return code;
        }
    }
}
