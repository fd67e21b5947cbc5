package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.Main;
import org.flinkss.jobs.queries.WindowITCase;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 38, point 5: {@code kill -9} part-way through {@code reset win5} or {@code reset bronze} no
 * longer strands the query. The reset writes its marker first; a run of the query is then refused
 * in one line naming {@code reset <query>}; the next {@code reset} completes the one cut short, and
 * the run after it leaves every table as an uninterrupted reset and run do. Killed after each step
 * (the reset pauses there, {@code -Dflinkss.test.resetPauseAfter}), and at seeded moments with no
 * pause. Before, every later run was refused with "Two bases sharing one --warehouse? ... delete
 * its folder".
 */
class ResetKillITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final long SEED = Long.getLong("flinkss.chaosSeed", 3805L);

    /** The steps of a reset, in order (QueryReset's ResetSteps). */
    private static final List<String> STEPS =
            List.of("marked", "deleted", "renewed", "emptied-one", "emptied-all");

    @TempDir Path dir;

    private static CliOutput cli(Path base, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--base", base.toString()));
        if (args[0].equals("run")) {
            all.addAll(List.of("--parallelism", "2", "--max-files-per-trigger", "1", "--quiet"));
        }
        return CliOutput.of(all.toArray(String[]::new));
    }

    private static CliOutput ok(Path base, String... args) {
        CliOutput o = cli(base, args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    /** Four files of 500 events and the late event of topic 11.11; bronze, then win5. */
    private static Path landedAndRun(Path base) {
        for (int file = 1; file <= 4; file++) {
            EventFiles.writeBatch(
                    Storage.location(base.resolve("events").toFile()),
                    file,
                    EventGenerator.events((file - 1) * 500L, 500));
        }
        EventFiles.writeBatch(
                Storage.location(base.resolve("events").toFile()), 5, List.of(WindowITCase.LATE));
        ok(base, "run", "bronze");
        ok(base, "run", "win5");
        return base;
    }

    private static Map<String, List<List<Object>>> tables(Path base) {
        return SameTables.of(Storage.location(base.resolve("warehouse").toFile()));
    }

    private static Map<String, List<List<Object>>> only(
            Map<String, List<List<Object>>> tables, String prefix) {
        Map<String, List<List<Object>>> some = new TreeMap<>();
        tables.forEach(
                (name, rows) -> {
                    if (name.startsWith(prefix)) {
                        some.put(name, rows);
                    }
                });
        return some;
    }

    private static String[] reset(Path base, String query) {
        return new String[] {"reset", query, "--base", base.toString()};
    }

    /** {@code reset <query>} in a child JVM that pauses after {@code step}, killed there. */
    private void killResetAfter(Path base, String query, String step) throws Exception {
        Path log = dir.resolve("logs/reset-" + query + "-" + step + ".log");
        Files.createDirectories(log.getParent());
        try (ChildJvm child =
                ChildJvm.of(Main.class)
                        .workDir(dir.resolve("child"))
                        .tmpDir(dir.resolve("child-tmp"))
                        .jvmOption("-Dflinkss.test.resetPauseAfter=" + step)
                        .output(log)
                        .start(reset(base, query))) {
            assertThat(
                            child.await(
                                    "reset paused after " + step,
                                    () -> child.outputText().contains("reset paused after"),
                                    Duration.ofSeconds(120)))
                    .as("reset %s reached step %s; output:%n%s", query, step, child.outputText())
                    .isTrue();
            assertThat(child.kill9()).isEqualTo(ChildJvm.KILLED_EXIT_CODE);
        }
    }

    /** A run of the query is refused in one line that names the way out, and nothing moves. */
    private static void runRefusedNamingReset(Path base, String query) {
        CliOutput refused = cli(base, "run", query);
        assertThat(refused.code()).as(refused.out() + refused.err()).isNotZero();
        assertThat(refused.err())
                .contains("was cut short")
                .contains("run 'reset " + query + "' to complete it")
                .doesNotContain("Two bases")
                .doesNotContain("\tat ");
    }

    /** The tables after the same history, an uninterrupted reset of win5 and its next run. */
    private Map<String, List<List<Object>>> afterAnUninterruptedReset() {
        Path reference = landedAndRun(dir.resolve("reference"));
        ok(reference, "reset", "win5");
        ok(reference, "run", "win5");
        Map<String, List<List<Object>>> expected = tables(reference);
        assertThat(expected.get("events_5min")).isNotEmpty();
        assertThat(expected.get("events_5min_late")).isNotEmpty();
        return expected;
    }

    @Test
    void aResetKilledAfterAnyStepIsCompletedByTheNextResetAndTheNextRunIsExact() throws Exception {
        // Step 1: the expectation.
        Map<String, List<List<Object>>> expected = afterAnUninterruptedReset();

        // Step 2: the same history, the reset of win5 killed after each of its steps in turn;
        // each time the run is refused naming reset, reset completes, and the run is exact.
        Path base = landedAndRun(dir.resolve("killed"));
        for (String step : STEPS) {
            killResetAfter(base, "win5", step);
            runRefusedNamingReset(base, "win5");
            assertThat(ok(base, "reset", "win5").out())
                    .as("after a kill after %s", step)
                    .contains("completing a reset that was cut short");
            ok(base, "run", "win5");
            Map<String, List<List<Object>>> got = tables(base);
            assertThat(SameTables.counts(got))
                    .as("killed after %s", step)
                    .isEqualTo(SameTables.counts(expected));
            assertThat(got).as("killed after %s", step).isEqualTo(expected);
        }

        // Step 3: reset bronze killed once its first table is emptied: bronze's tables come back
        // whole from the landing files.
        killResetAfter(base, "bronze", "emptied-one");
        runRefusedNamingReset(base, "bronze");
        ok(base, "reset", "bronze");
        ok(base, "run", "bronze");
        assertThat(only(tables(base), "events_bronze")).isEqualTo(only(expected, "events_bronze"));
    }

    @Test
    void resetsKilledAtSeededMomentsEndWithTheTablesOfAnUninterruptedReset() throws Exception {
        // Step 1: the expectation.
        Map<String, List<List<Object>>> expected = afterAnUninterruptedReset();

        // Step 2: reset win5 in child JVMs killed at seeded moments (JVM start-up takes about a
        // second and the reset well under one, so kills land before, inside and after it), then
        // one reset to its end.
        Path base = landedAndRun(dir.resolve("killed"));
        SeededKills.Result result =
                SeededKills.run(
                        dir.resolve("seeded"),
                        "reset-win5",
                        reset(base, "win5"),
                        4,
                        SEED,
                        800,
                        2500,
                        Duration.ofSeconds(120));
        assertThat(result.kills()).isGreaterThanOrEqualTo(1);

        // Step 3: the next run is exact.
        ok(base, "run", "win5");
        Map<String, List<List<Object>>> got = tables(base);
        assertThat(SameTables.counts(got)).isEqualTo(SameTables.counts(expected));
        assertThat(got).isEqualTo(expected);
    }
}
