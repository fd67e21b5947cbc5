package org.flinkss.jobs.userquery;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.flinkss.course.event.Event;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.event.LocalEventFiles;
import org.flinkss.course.testing.Expected;
import org.flinkss.jobs.CliOutput;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.flinkss.course.testing.Expected.MINUTE;

/**
 * {@code run --jar JAR --class CLASS}: the user's own query, the example project's, run embedded
 * through the same runner as {@code run <query>}; and the jars and classes that cannot run, each
 * refused in one line with exit code 2, before anything is written.
 */
public class UserJarITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    public static final String TABLE = "buys_per_user_10min";

    @TempDir static Path work;

    static Path exampleJar;
    static Path badJar;

    @BeforeAll
    static void jars() throws IOException {
        exampleJar = ExampleJar.build(work.resolve("jars"));
        Path sources = work.resolve("bad-src/com/acme");
        Files.createDirectories(sources);
        Files.writeString(
                sources.resolve("NotAQuery.java"),
                "package com.acme;\npublic class NotAQuery {}\n");
        Files.writeString(
                sources.resolve("NeedsArguments.java"),
                "package com.acme;\n"
                    + "public class NeedsArguments implements org.flinkss.runtime.query.Query {\n"
                    + "  public NeedsArguments(String name) {}\n"
                    + "  public String name() { return \"needs-arguments\"; }\n"
                    + "  public void build(org.flinkss.runtime.query.QueryContext c) {}\n"
                    + "}\n");
        badJar = ExampleJar.build(work.resolve("bad-src"), work.resolve("jars"), "bad.jar");
        Files.writeString(work.resolve("notes.jar"), "not a zip file\n");
    }

    private static CliOutput ok(String... args) {
        CliOutput out = CliOutput.of(args);
        assertThat(out.code()).as(out.err()).isZero();
        return out;
    }

    @Test
    void theExampleRunsLikeACourseQueryAndARerunWithNothingNewChangesNothing() {
        Path base = work.resolve("run");
        LocalEventFiles.writeBatch(base.resolve("events"), 1, EventGenerator.events(0, 500));
        ok("run", "bronze", "--base", base.toString(), "--quiet");
        Warehouse warehouse = new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
        List<List<Object>> expected = closedBuyWindows(EventGenerator.events(0, 500));
        assertThat(expected).isNotEmpty();

        // Step 1: the first run reads bronze's 500 rows and writes the windows that closed.
        CliOutput first = ok(jarRun(base));
        assertThat(first.out()).contains("buys-per-user: ").contains("500 rows read");
        assertThat(warehouse.sortedValues(TABLE)).isEqualTo(expected);
        assertThat(base.resolve("_cp/buys-per-user/metadata.json")).isRegularFile();
        long versions = warehouse.snapshot(TABLE, null, null).version();

        // Step 2: nothing new: no row read, no new version of the table.
        CliOutput second = ok(jarRun(base));
        assertThat(second.out()).contains("buys-per-user: ").contains("0 rows read");
        assertThat(warehouse.sortedValues(TABLE)).isEqualTo(expected);
        assertThat(warehouse.snapshot(TABLE, null, null).version()).isEqualTo(versions);

        // Step 3: the query's checkpoint is a query's like any other: progress and status read
        // it by the query's name.
        CliOutput progress = ok("progress", "buys-per-user", "--base", base.toString());
        assertThat(progress.out()).contains("\"numInputRows\" : 0");
        CliOutput status = ok("status", "buys-per-user", "--base", base.toString());
        assertThat(status.out()).contains("query buys-per-user (checkpoint ").contains(TABLE);

        // Step 4: reset, then a run from scratch: bronze is read again whole, and the table
        // holds each window once.
        ok("reset", "buys-per-user", "--base", base.toString());
        CliOutput afterReset = ok(jarRun(base));
        assertThat(afterReset.out()).contains("500 rows read");
        assertThat(warehouse.sortedValues(TABLE)).isEqualTo(expected);
    }

    private static String[] jarRun(Path base) {
        return new String[] {
            "run",
            "--jar",
            exampleJar.toString(),
            "--class",
            ExampleJar.QUERY_CLASS,
            "--base",
            base.toString(),
            "--parallelism",
            "2",
            "--quiet"
        };
    }

    /** Buys per user per 10-minute window that end by the newest event time - 10 minutes. */
    public static List<List<Object>> closedBuyWindows(List<Event> events) {
        long watermark = Expected.maxEventTime(events) - 10 * MINUTE;
        List<Event> buys = events.stream().filter(e -> "buy".equals(e.eventType)).toList();
        return Expected.windows(buys, 10 * MINUTE, 10 * MINUTE, true, watermark);
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(
                        "a missing jar",
                        "missing.jar",
                        "com.acme.BuysPerUser",
                        "missing.jar: no such file"),
                Arguments.of(
                        "a file that is not a jar",
                        "notes.jar",
                        "com.acme.BuysPerUser",
                        "notes.jar is not a jar"),
                Arguments.of(
                        "a class not in the jar",
                        "example",
                        "com.acme.Nowhere",
                        "class com.acme.Nowhere is not in "),
                Arguments.of(
                        "a class that is not a Query",
                        "bad",
                        "com.acme.NotAQuery",
                        "is not a query: it must implement org.flinkss.runtime.query.Query"),
                Arguments.of(
                        "no public no-argument constructor",
                        "bad",
                        "com.acme.NeedsArguments",
                        "has no public constructor without arguments"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aJarOrClassThatCannotRunIsOneLineExitTwoAndWritesNothing(
            String what, String jar, String className, String message) throws IOException {
        Path base = work.resolve("refused");
        Files.createDirectories(base);
        Path jarFile =
                switch (jar) {
                    case "example" -> exampleJar;
                    case "bad" -> badJar;
                    default -> work.resolve(jar);
                };

        CliOutput out =
                CliOutput.of(
                        "run",
                        "--jar",
                        jarFile.toString(),
                        "--class",
                        className,
                        "--base",
                        base.toString());

        assertThat(out.code()).as(out.err()).isEqualTo(2);
        List<String> lines = out.err().strip().lines().toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0))
                .startsWith("error: ")
                .contains(message)
                .contains(jarFile.toString());
        if (jarFile == exampleJar || jarFile == badJar) {
            assertThat(lines.get(0)).contains(className);
        }
        try (Stream<Path> written = Files.list(base)) {
            assertThat(written).isEmpty();
        }
    }
}
