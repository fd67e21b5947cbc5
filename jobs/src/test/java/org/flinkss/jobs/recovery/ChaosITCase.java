package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.LatestQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.jobs.Main;
import org.flinkss.jobs.queries.WindowITCase;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.runtime.testing.ChildJvm;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topic 11.14, proven by killing processes: the bronze -> latest and bronze -> win5 chain runs in
 * child JVMs that are killed with SIGKILL at seeded random moments (startup, mid-batch, mid-commit,
 * during the savepoint), 4 kills per query, then rerun until they finish; then sliding in update
 * mode and sessions in complete mode, 3 kills each. Every table must equal what uninterrupted runs
 * make of the same files: no row lost, none duplicated.
 */
class ChaosITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final long SEED = Long.getLong("flinkss.chaosSeed", 1129L);
    private static final int KILLS_PER_QUERY = 4;
    private static final int KILLS_PER_MODE = 3;
    private static final int FILES = 20;

    @TempDir Path dir;

    private static RunOptions options(Path base) {
        return RunOptions.builder()
                .base(Storage.location(base.toFile()))
                .parallelism(2)
                .maxFilesPerTrigger(2)
                .checkpointInterval(Duration.ofMillis(300))
                .printProgress(false)
                .build();
    }

    @Test
    void killedAtRandomMomentsTheChainEndsWithTheTablesOfUninterruptedRuns() throws Exception {
        RunOptions killed = options(dir.resolve("killed"));
        RunOptions reference = options(dir.resolve("reference"));
        for (RunOptions o : List.of(killed, reference)) {
            for (int file = 0; file < FILES; file++) {
                EventFiles.writeBatch(
                        o.events(), file + 1, EventGenerator.events(file * 500L, 500));
            }
        }
        // The late event of 11.11 lands last; bronze and latest keep it.
        EventFiles.writeBatch(killed.events(), FILES + 1, List.of(WindowITCase.LATE));
        EventFiles.writeBatch(reference.events(), FILES + 1, List.of(WindowITCase.LATE));

        // Step 1: the expectation, uninterrupted, in this JVM. win5 reads bronze in one batch per
        // run: its batch boundaries over bronze's part files would otherwise depend on when bronze
        // happened to commit, and with them the watermark (Spark's rule 6, "same run boundaries").
        QueryRunner.run(new BronzeQuery(reference.events()), reference);
        QueryRunner.run(new LatestQuery(reference.database()), reference);
        QueryRunner.run(
                WindowQuery.win5(Api.DATASTREAM),
                RunOptions.builder()
                        .base(reference.base())
                        .parallelism(2)
                        .checkpointInterval(Duration.ofMillis(300))
                        .printProgress(false)
                        .build());
        for (OutputMode mode : List.of(OutputMode.UPDATE, OutputMode.COMPLETE)) {
            RunOptions withMode =
                    RunOptions.builder()
                            .base(reference.base())
                            .parallelism(2)
                            .checkpointInterval(Duration.ofMillis(300))
                            .printProgress(false)
                            .outputMode(mode)
                            .build();
            QueryRunner.run(
                    (mode == OutputMode.UPDATE ? QueryCatalog.SLIDING : QueryCatalog.SESSIONS)
                            .create(withMode, Api.DATASTREAM),
                    withMode);
        }

        // Step 2: the same chain in child JVMs, killed 4 times per query at seeded moments.
        Random random = new Random(SEED);
        System.out.println(
                "chaos seed " + SEED + " (replay with -Dflinkss.chaosSeed=" + SEED + ")");
        ChildJvm.Launcher launcher =
                ChildJvm.of(Main.class)
                        .workDir(dir.resolve("child"))
                        .tmpDir(dir.resolve("child-tmp"));
        int kills = 0;
        List<String> timeline = new ArrayList<>();
        // The output modes' sinks too: sliding MERGEs into its Delta table, sessions replace
        // their table.
        for (String query :
                List.of(
                        "bronze",
                        "latest",
                        "win5",
                        "sliding --output-mode update",
                        "sessions --output-mode complete")) {
            List<String> args = new ArrayList<>(List.of("run"));
            args.addAll(List.of(query.split(" ")));
            boolean fromBronze = !query.equals("bronze") && !query.equals("latest");
            args.addAll(
                    List.of(
                            "--base",
                            killed.base().toString(),
                            "--parallelism",
                            "2",
                            "--checkpoint-interval",
                            "300ms",
                            "--quiet"));
            if (query.equals("latest")) {
                // The SQL path, as the reference (without it latest MERGEs into Delta).
                args.addAll(List.of("--jdbc-url", killed.database().describe()));
            }
            if (!fromBronze) {
                // The landing files in batches of two; a table is read with no limit (Spark
                // refuses 0, the option left out means none).
                args.addAll(List.of("--max-files-per-trigger", "2"));
            }
            int killsOfThisQuery =
                    query.contains("--output-mode") ? KILLS_PER_MODE : KILLS_PER_QUERY;
            int killedThisQuery = 0;
            for (int attempt = 1; ; attempt++) {
                assertThat(attempt)
                        .as("runs of %s", query)
                        .isLessThanOrEqualTo(killsOfThisQuery + 3);
                Path log =
                        dir.resolve("logs")
                                .resolve(query.replace(' ', '_') + "-" + attempt + ".log");
                try (ChildJvm child = launcher.output(log).start(args.toArray(new String[0]))) {
                    if (killedThisQuery < killsOfThisQuery) {
                        // From JVM start-up to the savepoint: a run takes 4 to 10 s here.
                        long wait = 700 + random.nextInt(3000);
                        Thread.sleep(wait);
                        if (child.isAlive()) {
                            assertThat(child.kill9()).isEqualTo(ChildJvm.KILLED_EXIT_CODE);
                            killedThisQuery++;
                            kills++;
                            timeline.add(
                                    query + " run " + attempt + ": killed after " + wait + " ms");
                            continue;
                        }
                    }
                    int code = child.waitFor(Duration.ofSeconds(120));
                    timeline.add(query + " run " + attempt + ": exited " + code);
                    assertThat(code)
                            .as("%s run %d; output:%n%s", query, attempt, child.outputText())
                            .isZero();
                    break;
                }
            }
        }
        timeline.forEach(System.out::println);
        // A run may end before its kill; most do not (with the 3 kills of
        // BronzeKillRecoveryITCase and the 2 of BronzeToKafkaKillRecoveryITCase, the suite kills
        // at least 20 runs).
        assertThat(kills).isGreaterThanOrEqualTo(3 * KILLS_PER_QUERY + 2 * KILLS_PER_MODE - 3);

        // Step 3: every table equals the uninterrupted chain's.
        Warehouse got = new Warehouse(killed.warehouse());
        Warehouse want = new Warehouse(reference.warehouse());
        assertThat(got.sortedValues("events_bronze"))
                .extracting(r -> r.get(0))
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.concat(LongStream.range(0, FILES * 500L), LongStream.of(99999))
                                .boxed()
                                .toList());
        for (String table : List.of("events_bronze", "events_5min")) {
            assertThat(got.sortedValues(table))
                    .as(table)
                    .containsExactlyElementsOf(want.sortedValues(table));
        }
        assertThat(got.sortedValues("events_5min_late"))
                .extracting(r -> r.subList(0, 6))
                .containsExactlyElementsOf(
                        want.sortedValues("events_5min_late").stream()
                                .map(r -> r.subList(0, 6))
                                .toList());
        assertThat(killed.database().rows(LatestQuery.TABLE))
                .containsExactlyElementsOf(reference.database().rows(LatestQuery.TABLE))
                .hasSize(FILES * 500 + 1);
        assertThat(got.sortedValues("events_sliding"))
                .isNotEmpty()
                .containsExactlyElementsOf(want.sortedValues("events_sliding"));
        assertThat(got.sortedValues("events_sessions"))
                .isNotEmpty()
                .containsExactlyElementsOf(want.sortedValues("events_sessions"));
    }
}
