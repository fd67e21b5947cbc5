package org.flinkss.jobs.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.Main;
import org.flinkss.runtime.testing.ChildJvm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code run win5 --parallelism 4} from the repository's root (issue 13 point 7), as a user types
 * it: a JVM of its own whose working directory is the root, so that its embedded cluster reads
 * {@code flink-conf/config.yaml}, which gives a TaskManager 2 slots. The run used to wait five
 * minutes for the 2 slots it lacked and then fail over in a loop; now the embedded cluster gets the
 * slots the parallelism needs, and the windows are those of a run at parallelism 2.
 */
class ParallelismFromTheRootITCase {

    private static final Path ROOT = Paths.get("..").toAbsolutePath().normalize();

    @TempDir Path work;

    @Test
    void win5AtParallelism4FromTheRootRunsOnTheConfigurationsTwoSlotsAndGivesTheSameWindows()
            throws Exception {
        Path conf = ROOT.resolve("flink-conf/config.yaml");
        assertThat(Files.readString(conf))
                .as("the premise: %s gives a TaskManager fewer slots than 4", conf)
                .contains("taskmanager.numberOfTaskSlots: 2");

        Path p4 = work.resolve("p4");
        Path p2 = work.resolve("p2");
        for (Path base : new Path[] {p4, p2}) {
            for (int batch = 1; batch <= 2; batch++) {
                CliOutput landed =
                        CliOutput.of(
                                "land-events",
                                "--base",
                                base.toString(),
                                "--batch",
                                String.valueOf(batch),
                                "--start",
                                String.valueOf((batch - 1) * 500));
                assertThat(landed.code()).as(landed.err()).isZero();
            }
        }

        ChildJvm.Launcher fromTheRoot =
                ChildJvm.of(Main.class).workDir(ROOT).tmpDir(work.resolve("tmp"));
        run(fromTheRoot, p4, "bronze", "4");
        String win5 = run(fromTheRoot, p4, "win5", "4");
        assertThat(win5).as("the configuration the run used").contains(conf.toString());
        run(fromTheRoot, p2, "bronze", "2");
        run(fromTheRoot, p2, "win5", "2");

        String windowsAt4 = export(p4, "events_5min");
        assertThat(windowsAt4.lines().count()).as(windowsAt4).isGreaterThan(10);
        assertThat(windowsAt4).isEqualTo(export(p2, "events_5min"));
        assertThat(export(p4, "events_bronze").lines().count()).isEqualTo(1001); // header + rows
    }

    /** One run in a child JVM from the root; it must finish well before a 5-minute slot wait. */
    private String run(ChildJvm.Launcher launcher, Path base, String query, String parallelism) {
        Path log = work.resolve("logs").resolve(query + "-p" + parallelism + ".log");
        try (ChildJvm child =
                launcher.output(log)
                        .start(
                                "run",
                                query,
                                "--base",
                                base.toString(),
                                "--parallelism",
                                parallelism)) {
            int code = child.waitFor(Duration.ofMinutes(2));
            assertThat(code)
                    .as("run %s at parallelism %s:%n%s", query, parallelism, child.outputText())
                    .isZero();
            return child.outputText();
        }
    }

    private static String export(Path base, String table) {
        CliOutput out = CliOutput.of("table", "export", table, "--base", base.toString(), "--csv");
        assertThat(out.code()).as(out.err()).isZero();
        return out.out();
    }
}
