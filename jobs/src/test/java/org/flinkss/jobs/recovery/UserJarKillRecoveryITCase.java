package org.flinkss.jobs.recovery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.jobs.CliOutput;
import org.flinkss.jobs.userquery.ExampleJar;
import org.flinkss.jobs.userquery.UserJarITCase;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31: a user's own query, run with {@code run --jar} and killed with SIGKILL at seeded
 * moments, ends with the table two uninterrupted runs give: the user's jar gets the course's
 * exactly-once (the example's 10-minute buy windows per user, over bronze read one file per batch,
 * so that a kill lands between batches as well as inside one).
 */
class UserJarKillRecoveryITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    private static final long SEED = Long.getLong("flinkss.chaosSeed", 3101L);
    private static final int KILLS = 3;
    private static final int FILES = 6;

    @TempDir Path dir;

    /** A base with {@link #FILES} landed files of 500 events each, read by bronze. */
    private static Path bronze(Path base) {
        for (int file = 1; file <= FILES; file++) {
            LocalEventFiles.writeBatch(
                    base.resolve("events"), file, EventGenerator.events((file - 1) * 500L, 500));
        }
        // One commit of bronze per file: the user's query then has a batch per commit.
        ok("run", "bronze", "--base", base.toString(), "--max-files-per-trigger", "1", "--quiet");
        return base;
    }

    private static String[] jarRun(Path jar, Path base) {
        return new String[] {
            "run",
            "--jar",
            jar.toString(),
            "--class",
            ExampleJar.QUERY_CLASS,
            "--base",
            base.toString(),
            "--parallelism",
            "2",
            "--max-files-per-trigger",
            "1",
            "--checkpoint-interval",
            "300ms",
            "--quiet"
        };
    }

    private static List<List<Object>> rows(Path base) {
        return new Warehouse(Storage.location(base.resolve("warehouse").toFile()))
                .sortedValues(UserJarITCase.TABLE);
    }

    private static CliOutput ok(String... args) {
        CliOutput out = CliOutput.of(args);
        assertThat(out.code()).as(out.err()).isZero();
        return out;
    }

    @Test
    void aUsersJarKilledAtRandomMomentsEndsWithTheTableOfUninterruptedRuns() throws Exception {
        Path jar = ExampleJar.build(dir.resolve("jars"));

        // Step 1: two uninterrupted runs give the same windows, over several batches.
        Path first = bronze(dir.resolve("reference-1"));
        CliOutput run = ok(jarRun(jar, first));
        Matcher batches = Pattern.compile("buys-per-user: (\\d+) batches").matcher(run.out());
        assertThat(batches.find()).as(run.out()).isTrue();
        assertThat(Integer.parseInt(batches.group(1))).isGreaterThanOrEqualTo(FILES);
        List<List<Object>> reference = rows(first);
        assertThat(reference).hasSizeGreaterThan(10);
        Path second = bronze(dir.resolve("reference-2"));
        ok(jarRun(jar, second));
        assertThat(rows(second)).isEqualTo(reference);

        // Step 2: the same input, the user's query in a child JVM killed at seeded moments, then
        // run to its end.
        Path killed = bronze(dir.resolve("killed"));
        // From JVM start-up to the last batch's commit: a run takes 6 to 12 s here.
        SeededKills.Result result =
                SeededKills.run(
                        dir,
                        "buys-per-user",
                        jarRun(jar, killed),
                        KILLS,
                        SEED,
                        1500,
                        5000,
                        Duration.ofSeconds(180));
        assertThat(result.kills())
                .as("runs killed before they ended")
                .isGreaterThanOrEqualTo(KILLS - 1);

        // Step 3: each window once, as the uninterrupted runs wrote them.
        assertThat(rows(killed)).isEqualTo(reference);
    }
}
