package org.flinkss.jobs.recovery;

import org.flinkss.jobs.Main;
import org.flinkss.runtime.testing.ChildJvm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A command of the command line run in child JVMs: the first runs killed with SIGKILL at seeded
 * moments (a run that ends first is not killed), then one run to its end, which must exit 0.
 */
final class SeededKills {

    /** How many runs were killed, and what happened to each run. */
    record Result(int kills, List<String> timeline) {}

    private SeededKills() {}

    /**
     * Runs {@code Main} with {@code args} in child JVMs under {@code dir} (its {@code child},
     * {@code child-tmp} and {@code logs} folders).
     *
     * @param name the command's name in logs and messages
     * @param seed the seed of the kill moments, printed so a run can be replayed
     * @param waitMs the shortest time a run lives before its kill
     * @param spreadMs how much longer, at most, drawn from the seed
     */
    static Result run(
            Path dir,
            String name,
            String[] args,
            int kills,
            long seed,
            long waitMs,
            int spreadMs,
            Duration timeout)
            throws Exception {
        System.out.println(name + " kill seed " + seed + " (-Dflinkss.chaosSeed=" + seed + ")");
        Random random = new Random(seed);
        ChildJvm.Launcher launcher =
                ChildJvm.of(Main.class)
                        .workDir(dir.resolve("child"))
                        .tmpDir(dir.resolve("child-tmp"));
        Path logs = dir.resolve("logs");
        List<String> timeline = new ArrayList<>();
        int killed = 0;
        for (int attempt = 1; ; attempt++) {
            assertThat(attempt).as("runs of %s", name).isLessThanOrEqualTo(kills + 3);
            Path log = logs.resolve(name + "-" + attempt + ".log");
            try (ChildJvm child = launcher.output(log).start(args)) {
                if (killed < kills) {
                    long wait = waitMs + random.nextInt(spreadMs);
                    Thread.sleep(wait);
                    if (child.isAlive()) {
                        assertThat(child.kill9()).isEqualTo(ChildJvm.KILLED_EXIT_CODE);
                        killed++;
                        timeline.add(name + " run " + attempt + ": killed after " + wait + " ms");
                        continue;
                    }
                }
                int code = child.waitFor(timeout);
                timeline.add(name + " run " + attempt + ": exited " + code);
                assertThat(code)
                        .as("%s run %d; output:%n%s", name, attempt, child.outputText())
                        .isZero();
                timeline.forEach(System.out::println);
                return new Result(killed, timeline);
            }
        }
    }
}
