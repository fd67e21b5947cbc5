package org.flinkss.jobs.scripts;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.flinkss.course.testing.KafkaTestBroker;
import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code scripts/bench-latency} (issue 36) on a real broker of the test's own, through the runnable
 * jar that {@code package} built: both queries, both deliveries, at a small rate for a few seconds.
 * Every event sent comes out (bronze: each id read; win5: each window's last update counts exactly
 * its events), nothing duplicated under exactly-once, latencies positive, and the topics it made
 * are deleted at the end.
 */
// Long and cluster-free (the tag lets -DexcludedGroups=long leave it out); it runs beside the
// other integration tests, as BenchAllScriptITCase does.
@Tag("long")
class BenchLatencyScriptITCase {

    private static final Path ROOT = projectRoot();

    @RegisterExtension static final KafkaTestBroker.PerClass KAFKA = new KafkaTestBroker.PerClass();

    private Path tmp;

    @BeforeEach
    void freshFolder(TestInfo test) throws IOException {
        tmp =
                ROOT.resolve("jobs/target/bench-latency-it")
                        .resolve(test.getTestMethod().orElseThrow().getName());
        Folders.deleteQuietly(Storage.location(tmp.toFile()));
        Files.createDirectories(tmp);
    }

    @Test
    void bothQueriesAndDeliveriesGiveEveryEventOnceWithPositiveLatencies() throws Exception {
        String servers = KAFKA.broker().bootstrapServers();
        int rate = 200;
        int seconds = 3;

        // Step 1: bronze and win5, at-least-once and exactly-once, 200 events/s for 1 s of warm-up
        // and 3 s measured each, on the jar FLINKSS_JAR names (the build's own here), as for
        // another checkout's jar.
        Path jar = ROOT.resolve("jobs/target/flinkss-jobs.jar");
        Result result =
                script(
                        Map.of("FLINKSS_JAR", jar.toString()),
                        "bench-latency",
                        "--bootstrap-servers",
                        servers,
                        "--rates",
                        Integer.toString(rate),
                        "--seconds",
                        Integer.toString(seconds),
                        "--warm-seconds",
                        "1",
                        "--queries",
                        "bronze,win5",
                        "--delivery",
                        "at-least-once,exactly-once",
                        "--checkpoint-interval",
                        "1s",
                        "--dir",
                        tmp.resolve("b").toString());

        // Step 2: the table: the commit and load line, the header, one row per combination.
        assertThat(result.exit).as(result.output).isZero();
        assertThat(result.stdout)
                .contains("load average before: ", "checkpoint interval 1s")
                .contains("3 s a rate after 1 s of warm-up at it")
                // The commit the jar was built from, as its --version gives it, not the checkout's.
                .contains("commit " + commitOf(jar) + " (FLINKSS_JAR)");
        List<String> table = result.table();
        assertThat(table.get(0)).startsWith("| query | delivery | rate/s | sent |");
        List<Row> rows = table.subList(2, table.size()).stream().map(Row::parse).toList();
        assertThat(rows)
                .extracting(r -> r.query + " " + r.delivery)
                .containsExactly(
                        "bronze at-least-once",
                        "bronze exactly-once",
                        "win5 at-least-once",
                        "win5 exactly-once");

        // Step 3: what was sent came out, once; latencies are positive and ordered.
        for (Row row : rows) {
            String what = row.query + " " + row.delivery + ": " + result.output;
            assertThat(row.sent).as(what).isEqualTo((long) rate * seconds);
            assertThat(row.missing).as(what).isZero();
            assertThat(row.read).as(what).isPositive();
            assertThat(row.p50).as(what).isPositive();
            assertThat(row.p99).as(what).isGreaterThanOrEqualTo(row.p50);
            assertThat(row.max).as(what).isGreaterThanOrEqualTo(row.p99);
            if (row.delivery.equals("exactly-once")) {
                assertThat(row.duplicated).as(what).isZero();
            }
            if (row.query.equals("bronze")) {
                // One record per event: each measured event read (and, exactly once, only once),
                // the 200 of the warm-up second not among them; second by second of send time,
                // every measured event once, in the seconds 0 to 3 of the measured 3.
                assertThat(row.read - row.duplicated).as(what).isEqualTo(row.sent);
                List<String> bySecond =
                        Files.readAllLines(
                                tmp.resolve("b/runs/bronze-" + row.delivery + "-" + rate)
                                        .resolve("by-second.md"));
                assertThat(bySecond.get(0))
                        .isEqualTo("| second | read | p50 ms | p99 ms | max ms |");
                List<String[]> cells =
                        bySecond.subList(2, bySecond.size()).stream()
                                .map(line -> line.replace(",", "").split("\\s*\\|\\s*"))
                                .toList();
                assertThat(cells).extracting(c -> Long.parseLong(c[1])).allMatch(sec -> sec <= 3);
                assertThat(cells.stream().mapToLong(c -> Long.parseLong(c[2])).sum())
                        .as(what)
                        .isEqualTo(row.sent);
            }
        }

        // Step 4: each query's log (its stderr) holds no warning of Flink's metric group: Flink
        // 2.2.0's sink committer registers a gauge again at every checkpoint, which the jar's
        // logging leaves out (checkpoints here every second, with Kafka sinks' committers).
        List<Path> logs;
        try (Stream<Path> files = Files.walk(tmp.resolve("b/runs"))) {
            logs = files.filter(f -> f.getFileName().toString().equals("job.log")).toList();
        }
        assertThat(logs).hasSize(4);
        for (Path log : logs) {
            assertThat(Files.readAllLines(log, StandardCharsets.UTF_8))
                    .as(log.toString())
                    .anyMatch(line -> line.startsWith("latency-"))
                    .noneMatch(line -> line.contains(" MetricGroup - "));
        }

        // Step 5: the topics it created are gone; nothing else was made.
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers))) {
            assertThat(admin.listTopics().names().get(1, TimeUnit.MINUTES))
                    .noneMatch(t -> t.startsWith("bench-latency-"));
        }
    }

    @Test
    void aFolderItDidNotMakeIsRefusedAndLeftAlone() throws Exception {
        Path foreign = Files.createDirectories(tmp.resolve("foreign"));
        Path kept = Files.writeString(foreign.resolve("notes.txt"), "mine");

        Result result =
                script(
                        "bench-latency",
                        "--bootstrap-servers",
                        KAFKA.broker().bootstrapServers(),
                        "--dir",
                        foreign.toString());

        assertThat(result.exit).isEqualTo(2);
        assertThat(result.output)
                .contains("bench-latency's folder " + foreign + " is not empty")
                .contains("notes.txt");
        assertThat(kept).hasContent("mine");
    }

    /** The commit {@code java -jar JAR --version} names ("... (commit 0123abcd...)"). */
    private static String commitOf(Path jar) throws IOException, InterruptedException {
        Process process =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-jar",
                                jar.toString(),
                                "--version")
                        .redirectErrorStream(true)
                        .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("--version ended").isTrue();
        Matcher commit = Pattern.compile("\\(commit ([^)]+)\\)").matcher(out);
        assertThat(commit.find()).as("a commit in --version: %s", out).isTrue();
        return commit.group(1);
    }

    private Result script(String name, String... args) throws IOException, InterruptedException {
        return script(Map.of(), name, args);
    }

    private Result script(Map<String, String> environment, String name, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ROOT.resolve("scripts/" + name).toString());
        command.addAll(Arrays.asList(args));
        Path log = tmp.resolve(name + ".out");
        Path err = tmp.resolve(name + ".err");
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .directory(ROOT.toFile())
                        .redirectOutput(log.toFile())
                        .redirectError(err.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        // Only to catch a hang: four queries started one after the other on a loaded machine.
        if (!process.waitFor(30, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("scripts/" + name + " did not end within 30 minutes");
        }
        String stdout = Files.readString(log, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        return new Result(process.exitValue(), stdout, stdout + stderr);
    }

    private static Path projectRoot() {
        Path here = Paths.get("").toAbsolutePath();
        return Files.exists(here.resolve("scripts")) ? here : here.getParent();
    }

    private record Result(int exit, String stdout, String output) {
        List<String> table() {
            return stdout.lines().filter(l -> l.startsWith("|")).collect(Collectors.toList());
        }
    }

    /** One row: query, delivery, rate, sent, sent at, behind, read, missing, duplicated, ms. */
    private record Row(
            String query,
            String delivery,
            long sent,
            long read,
            long missing,
            long duplicated,
            long p50,
            long p99,
            long max) {
        static Row parse(String line) {
            String[] c =
                    Arrays.stream(line.split("\\|"))
                            .map(String::trim)
                            .filter(s -> !s.isEmpty())
                            .toArray(String[]::new);
            return new Row(
                    c[0],
                    c[1],
                    number(c[3]),
                    number(c[6]),
                    number(c[7]),
                    number(c[8]),
                    number(c[9]),
                    number(c[10]),
                    number(c[11]));
        }

        private static long number(String s) {
            return Long.parseLong(s.replace(",", ""));
        }
    }
}
