package org.flinkss.sparkdiff;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code scripts/bench-spark} on a few thousand events: Spark (the oracle's {@code SparkBronzeRun},
 * in its own JVM) and the project's runnable jar each run bronze once, both read every event, and
 * the table and ratios parse and agree with each other. Needs the full build's {@code
 * jobs/target/flinkss-jobs.jar} and {@code spark-diff/oracle/target}.
 */
class BenchSparkScriptITCase {

    private static final Path ROOT = projectRoot();
    private static final Pattern RATIOS =
            Pattern.compile(
                    "Spark whole process / flinkss whole process: ([0-9.]+) times; Spark query"
                            + " alone / flinkss whole process: ([0-9.]+) times \\(medians\\)");

    private Path tmp;

    @BeforeEach
    void freshFolder(TestInfo test) throws IOException {
        tmp =
                ROOT.resolve("spark-diff/target/bench-spark-it")
                        .resolve(test.getTestMethod().orElseThrow().getName());
        if (Files.exists(tmp)) {
            try (Stream<Path> paths = Files.walk(tmp)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(tmp);
    }

    @Test
    void sparkAndTheProjectEachReadEveryEventAndTheTableAgreesWithTheRuns() throws Exception {
        Path base = tmp.resolve("b");
        Result result =
                benchSpark(
                        "--runs",
                        "1",
                        "--events",
                        "2000",
                        "--files-of",
                        "1000",
                        "--base",
                        base.toString());

        assertThat(result.exit).as(result.output).isZero();
        List<String> table = result.stdout.lines().filter(l -> l.startsWith("|")).toList();
        assertThat(table).as(result.stdout).hasSize(5);
        List<String[]> rows =
                table.subList(2, 5).stream()
                        .map(l -> l.substring(1, l.length() - 1).split("\\|"))
                        .map(cells -> Arrays.stream(cells).map(String::trim).toArray(String[]::new))
                        .toList();
        assertThat(rows.get(0)[0])
                .matches("Spark 4\\.\\d+\\.\\d+ bronze to delta, whole process.*");
        assertThat(rows.get(1)[0]).contains("the query alone");
        assertThat(rows.get(2)[0]).startsWith("flinkss `run bronze` to Delta, whole process");
        for (String[] row : rows) {
            assertThat(row[1]).as(row[0]).isEqualTo("2000");
            assertThat(row[2]).as(row[0]).isEqualTo("1");
            assertThat(Double.parseDouble(row[4])).as(row[0]).isPositive();
        }
        double sparkWhole = Double.parseDouble(rows.get(0)[4]);
        double sparkQuery = Double.parseDouble(rows.get(1)[4]);
        double project = Double.parseDouble(rows.get(2)[4]);
        // Spark's query runs inside its process: it cannot take longer than the whole.
        assertThat(sparkQuery).isLessThan(sparkWhole);
        Matcher ratios = RATIOS.matcher(result.stdout);
        assertThat(ratios.find()).as(result.stdout).isTrue();
        assertThat(Double.parseDouble(ratios.group(1)))
                .isCloseTo(sparkWhole / project, org.assertj.core.data.Offset.offset(0.06));
        assertThat(Double.parseDouble(ratios.group(2)))
                .isCloseTo(sparkQuery / project, org.assertj.core.data.Offset.offset(0.06));
        // One line per measurement; Spark's output table is deleted after its run.
        assertThat(Files.readAllLines(base.resolve("results.tsv")))
                .extracting(l -> l.split("\t")[0])
                .containsExactly("spark", "spark-query", "flinkss");
        assertThat(base.resolve("landed/events")).isDirectory();
        try (Stream<Path> left = Files.list(base)) {
            assertThat(left.map(p -> p.getFileName().toString()))
                    .as("what the run leaves in its folder: no Spark table, no scratch output")
                    .containsExactlyInAnyOrder(
                            ".flinkss-bench-spark", "landed", "landed.stamp", "results.tsv");
        }
    }

    @Test
    void withABusyCoreBothSidesRunUnderItAndTheTableAndRatiosSaySo() throws Exception {
        Path base = tmp.resolve("b");
        Result result =
                benchSpark(
                        "--runs",
                        "1",
                        "--events",
                        "2000",
                        "--files-of",
                        "1000",
                        "--busy-core",
                        "--base",
                        base.toString());

        assertThat(result.exit).as(result.output).isZero();
        List<String> table = result.stdout.lines().filter(l -> l.startsWith("|")).toList();
        assertThat(table).as(result.stdout).hasSize(5);
        assertThat(table.subList(2, 5))
                .allMatch(row -> row.contains(", a second process keeping one core busy |"));
        Matcher ratio =
                Pattern.compile(
                                "Spark whole process / flinkss whole process: ([0-9.]+) times;"
                                        + " .*\\(medians, a second process keeping one core"
                                        + " busy\\)")
                        .matcher(result.stdout);
        assertThat(ratio.find()).as(result.stdout).isTrue();
        assertThat(Double.parseDouble(ratio.group(1))).isPositive();
        // Both sides read every event (the script stops otherwise), and the loop that kept a core
        // busy was stopped with the runs.
        assertThat(Files.readAllLines(base.resolve("results.tsv")))
                .extracting(l -> l.split("\t")[0])
                .containsExactly("spark", "spark-query", "flinkss");
        assertThat(ProcessHandle.allProcesses())
                .noneMatch(p -> p.info().commandLine().orElse("").contains("while :; do :; done"));
    }

    @Test
    void aFolderBenchSparkDidNotMakeIsRefusedAndKept() throws Exception {
        Path foreign = Files.createDirectories(tmp.resolve("mine"));
        Files.writeString(foreign.resolve("notes.txt"), "keep me");

        Result result = benchSpark("--runs", "1", "--base", foreign.toString());

        assertThat(result.exit).isEqualTo(2);
        assertThat(result.output).contains(foreign.toString()).contains("notes.txt");
        assertThat(foreign.resolve("notes.txt")).hasContent("keep me");
        assertThat(foreign.resolve(".flinkss-bench-spark")).doesNotExist();
    }

    @Test
    void aFormatOtherThanDeltaOrParquetIsRefused() throws Exception {
        Result result = benchSpark("--format", "orc", "--base", tmp.resolve("b").toString());

        assertThat(result.exit).isEqualTo(2);
        assertThat(result.output).contains("--format takes delta or parquet, not 'orc'");
        assertThat(tmp.resolve("b")).doesNotExist();
    }

    private Result benchSpark(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ROOT.resolve("scripts/bench-spark").toString());
        command.addAll(Arrays.asList(args));
        Path out = tmp.resolve("bench-spark.out");
        Path err = tmp.resolve("bench-spark.err");
        Process process =
                new ProcessBuilder(command)
                        .directory(ROOT.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("scripts/bench-spark did not end within 10 minutes");
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        return new Result(process.exitValue(), stdout, stdout + stderr);
    }

    private record Result(int exit, String stdout, String output) {}

    private static Path projectRoot() {
        for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("scripts/bench-spark"))
                    && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        throw new IllegalStateException(
                "no project root (a folder with scripts/bench-spark) above "
                        + Paths.get("").toAbsolutePath());
    }
}
