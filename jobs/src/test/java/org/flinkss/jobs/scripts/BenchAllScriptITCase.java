package org.flinkss.jobs.scripts;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.flinkss.runtime.checkpoint.Folders;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code scripts/bench-all} on tiny sizes, through the runnable jar that {@code package} built:
 * every row of the table is measured, printed once, and its numbers parse and agree with each
 * other. The work folders of the bench scripts are guarded by {@code scripts/lib/bench.sh}.
 */
// Long and cluster-free (the tag lets -DexcludedGroups=long leave it out); it runs beside the
// other integration tests (the root pom's failsafe execution).
@Tag("long")
class BenchAllScriptITCase {

    private static final Path ROOT = projectRoot();
    private static final String ISSUE_17_ROWS =
            "bronze,win5,dedup,silver,pipeline,incremental,backlog-bronze,backlog-win5,"
                    + "after-many-files,after-few-files";
    private static final String ISSUE_36_ROWS =
            "dedup-process,sessions-process,sliding-process,win5-process,bronze-busy-core,"
                    + "incremental-count,sessions,sliding";
    private static final String HEADER =
            "| Run | events | runs | min s | median s | max s | events/s at median | CPU s, median"
                    + " | peak RSS |";

    /**
     * A folder of this test's own under jobs/target (java.io.tmpdir of the ITCases may not exist).
     */
    private Path tmp;

    @BeforeEach
    void freshFolder(TestInfo test) throws IOException {
        tmp =
                ROOT.resolve("jobs/target/bench-all-it")
                        .resolve(test.getTestMethod().orElseThrow().getName());
        Folders.deleteQuietly(Storage.location(tmp.toFile()));
        Files.createDirectories(tmp);
    }

    @Test
    void everyRowIsMeasuredAndPrintedAsAMarkdownRowWithParsedNumbers() throws Exception {
        // Step 1: issue 17's rows, one run each, on a few thousand events (issue 36's rows are
        // the next test's).
        Result result =
                benchAll(
                        "--only",
                        ISSUE_17_ROWS,
                        "--runs",
                        "1",
                        "--events",
                        "2000",
                        "--backlog-events",
                        "4000",
                        "--files-of",
                        "1000",
                        "--max-files-per-trigger",
                        "2",
                        "--many-files",
                        "20",
                        "--few-files",
                        "2",
                        "--base",
                        tmp.resolve("b").toString());

        // Step 2: the table: a header, its separator, then one row per id, in the script's order.
        assertThat(result.exit).as(result.output).isZero();
        List<String> table = result.table();
        assertThat(table.get(0)).isEqualTo(HEADER);
        assertThat(table.get(1)).startsWith("| --- |");
        List<Row> rows = table.subList(2, table.size()).stream().map(Row::parse).toList();
        assertThat(rows)
                .extracting(r -> r.label)
                .containsExactly(
                        "bronze, whole process (`run bronze`, JVM start to exit)",
                        "win5 (`bench win5`: the query's run)",
                        "dedup (`bench dedup`: the query's run)",
                        "silver (`bench silver`: the query's run)",
                        "pipeline end to end (`bench pipeline`: bronze, silver, gold)",
                        "incremental run of 500 new events, whole process",
                        "backlog, bronze with --max-files-per-trigger 2, whole process",
                        "backlog, win5 with --max-files-per-trigger 2, whole process",
                        "incremental run of 500 events after 20 processed files, whole process",
                        "incremental run of 500 events after 2 processed files, whole process");
        assertThat(rows)
                .extracting(r -> r.events)
                .containsExactly(2000L, 2000L, 2000L, 2000L, 2000L, 500L, 4000L, 4000L, 500L, 500L);
        for (Row row : rows) {
            assertThat(row.runs).as(row.label).isEqualTo(1);
            assertThat(row.min).as(row.label).isPositive().isEqualTo(row.median).isEqualTo(row.max);
            assertThat(row.eventsPerSecond)
                    .as(row.label)
                    .isCloseTo(row.events / row.median, org.assertj.core.data.Offset.offset(1.0));
            // A JVM with the embedded cluster never fits in 50 MiB nor needs 8 GiB here.
            assertThat(row.rssGiB).as(row.label).isBetween(0.05, 8.0);
        }
        // Whole-process rows have the process's CPU time; bench rows the CPU of the query's run
        // inside one, as bench prints it.
        assertThat(rows.get(0).cpu).isPositive();
        assertThat(rows.get(1).cpu).isPositive();
        assertThat(rows.get(4).cpu).isPositive();
    }

    @Test
    void issue36RowsAreMeasuredTheCountCheckedAndTheBusyCoreStopped() throws Exception {
        // Step 1: issue 36's rows, one run each, on a few thousand events.
        Path base = tmp.resolve("b");
        Result result =
                benchAll(
                        "--only",
                        ISSUE_36_ROWS,
                        "--runs",
                        "1",
                        "--events",
                        "2000",
                        "--files-of",
                        "1000",
                        "--base",
                        base.toString());

        // Step 2: one row per id, in the script's order whatever the order of --only.
        assertThat(result.exit).as(result.output).isZero();
        List<String> table = result.table();
        assertThat(table.get(0)).isEqualTo(HEADER);
        List<Row> rows = table.subList(2, table.size()).stream().map(Row::parse).toList();
        assertThat(rows)
                .extracting(r -> r.label)
                .containsExactly(
                        "sliding (`bench sliding`: the query's run)",
                        "sessions (`bench sessions`: the query's run)",
                        "incremental run of 500 new events and `table count`, two processes",
                        "bronze, whole process, a second process keeping one core busy",
                        "win5 (`run win5` over events_bronze), whole process",
                        "sliding (`run sliding` over events_bronze), whole process",
                        "sessions (`run sessions` over events_bronze), whole process",
                        "dedup (`run dedup` over events_bronze), whole process");
        assertThat(rows)
                .extracting(r -> r.events)
                .containsExactly(2000L, 2000L, 500L, 2000L, 2000L, 2000L, 2000L, 2000L);
        for (Row row : rows) {
            assertThat(row.runs).as(row.label).isEqualTo(1);
            assertThat(row.median).as(row.label).isPositive();
            assertThat(row.cpu).as(row.label).isPositive();
            assertThat(row.rssGiB).as(row.label).isBetween(0.05, 8.0);
        }

        // Step 3: the incremental run read its 500 new events after bench's 500 (the script
        // checked the count the second process printed; the table says the same), and each
        // whole-process query wrote its table from the bronze row's 2,000 events.
        assertThat(warehouse(base.resolve("incremental-count")).count("events_bronze"))
                .isEqualTo(1000);
        Warehouse queries = warehouse(base.resolve("bronze"));
        assertThat(queries.count("events_bronze")).isEqualTo(2000);
        for (String table36 :
                List.of("events_5min", "events_sliding", "events_sessions", "events_dedup")) {
            assertThat(queries.exists(table36)).as(table36).isTrue();
        }

        // Step 4: the loop that kept a core busy was stopped with its run.
        assertThat(ProcessHandle.allProcesses())
                .noneMatch(p -> p.info().commandLine().orElse("").contains("while :; do :; done"));
    }

    private static Warehouse warehouse(Path base) {
        return new Warehouse(Storage.location(base.resolve("warehouse").toFile()));
    }

    @Test
    void onlyMeasuresTheRowsNamedAndOrdersMinMedianMax() throws Exception {
        // win5: one JVM a run (bench lands and runs bronze inside it), where the incremental row
        // starts two (land-events, run bronze) and lands first: 40 s here instead of 117 s.
        Result result =
                benchAll(
                        "--runs",
                        "3",
                        "--only",
                        "win5",
                        "--events",
                        "2000",
                        "--base",
                        tmp.resolve("b").toString());

        assertThat(result.exit).as(result.output).isZero();
        List<String> table = result.table();
        assertThat(table).hasSize(3);
        Row row = Row.parse(table.get(2));
        assertThat(row.label).isEqualTo("win5 (`bench win5`: the query's run)");
        assertThat(row.events).isEqualTo(2000L);
        assertThat(row.runs).isEqualTo(3);
        assertThat(row.min).isPositive().isLessThanOrEqualTo(row.median);
        assertThat(row.median).isLessThanOrEqualTo(row.max);
        // Each measurement is in the raw results too, one line per run.
        assertThat(Files.readAllLines(tmp.resolve("b/results.tsv")))
                .hasSize(3)
                .allMatch(line -> line.startsWith("win5\t2000\t"));
    }

    @Test
    void anUnknownRowIsRefusedNamingTheRows() throws Exception {
        Result result = benchAll("--only", "bronze,win6", "--base", tmp.resolve("b").toString());

        assertThat(result.exit).isEqualTo(2);
        assertThat(result.output).contains("no row 'win6'").contains("after-many-files");
        assertThat(tmp.resolve("b")).doesNotExist();
    }

    @Test
    void aFolderBenchAllDidNotMakeIsRefused() throws Exception {
        Path foreign = Files.createDirectories(tmp.resolve("mine"));
        Files.writeString(foreign.resolve("notes.txt"), "keep me");

        Result result = benchAll("--only", "incremental", "--base", foreign.toString());

        assertThat(result.exit).isEqualTo(2);
        assertThat(result.output).contains(foreign.toString()).contains("notes.txt");
        assertThat(foreign.resolve("notes.txt")).hasContent("keep me");
    }

    @Test
    void benchIncrementalRefusesAFolderItDidNotMakeAndKeepsIt() throws Exception {
        // scripts/bench-incremental guards its folder with bench-all's lib/bench.sh.
        Path foreign = Files.createDirectories(tmp.resolve("mine"));
        Files.writeString(foreign.resolve("notes.txt"), "keep me");
        Files.createDirectories(foreign.resolve("_cp"));

        Result result = script("bench-incremental", "1", foreign.toString());

        assertThat(result.exit).as(result.output).isEqualTo(2);
        assertThat(result.output)
                .contains("bench-incremental's folder " + foreign)
                .contains("notes.txt")
                .contains("did not make it");
        assertThat(foreign.resolve("notes.txt")).hasContent("keep me");
        assertThat(foreign.resolve("_cp")).isDirectory();
        try (var entries = Files.list(foreign)) {
            assertThat(entries).as("nothing added, nothing removed").hasSize(2);
        }
    }

    @Test
    void benchMergeMeasuresEachShapeOnATinyTableInAFolderOfItsOwn() throws Exception {
        Path folder = tmp.resolve("merge");
        Result result =
                script(
                        "bench-merge",
                        "--rows",
                        "2000",
                        "--rows-per-file",
                        "1000",
                        "--batch-rows",
                        "10",
                        "--batches",
                        "1",
                        "--dir",
                        folder.toString());

        assertThat(result.exit).as(result.output).isZero();
        assertThat(result.stdout).contains("load average before: ", "load average after: ");
        assertThat(result.table())
                .hasSize(5)
                .element(2)
                .asString()
                .startsWith("| 2,000 | 2 | insert, 10 rows | 0 | 10 | ");
        assertThat(folder.resolve(".flinkss-bench-merge")).exists();

        // A second run replaces its own tables; a folder it did not make is refused and kept.
        assertThat(script("bench-merge", "--rows", "1000", "--dir", folder.toString()).exit)
                .isZero();
        Path foreign = Files.createDirectories(tmp.resolve("mine"));
        Files.writeString(foreign.resolve("notes.txt"), "keep me");
        Result refused = script("bench-merge", "--dir", foreign.toString());
        assertThat(refused.exit).as(refused.output).isEqualTo(2);
        assertThat(refused.output).contains("did not make it");
        assertThat(foreign.resolve("notes.txt")).hasContent("keep me");
    }

    private Result benchAll(String... args) throws IOException, InterruptedException {
        return script("bench-all", args);
    }

    private Result script(String name, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ROOT.resolve("scripts/" + name).toString());
        command.addAll(Arrays.asList(args));
        Path log = tmp.resolve(name + ".out");
        Path err = tmp.resolve(name + ".err");
        Process process =
                new ProcessBuilder(command)
                        .directory(ROOT.toFile())
                        .redirectOutput(log.toFile())
                        .redirectError(err.toFile())
                        .start();
        // Only to catch a hang: at a load average of 45 on 2 cores one bronze run of 2,000 events
        // took 46 s as a whole process, and a row starts up to 6 processes.
        if (!process.waitFor(40, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("scripts/" + name + " did not end within 40 minutes");
        }
        String stdout = Files.readString(log, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        return new Result(process.exitValue(), stdout, stdout + stderr);
    }

    private record Result(int exit, String stdout, String output) {
        List<String> table() {
            return stdout.lines().filter(l -> l.startsWith("|")).collect(Collectors.toList());
        }
    }

    /** One row of the table, its cells parsed. */
    private record Row(
            String label,
            long events,
            int runs,
            double min,
            double median,
            double max,
            double eventsPerSecond,
            Double cpu,
            double rssGiB) {

        static Row parse(String line) {
            String[] cells = line.substring(1, line.length() - 1).split("\\|");
            assertThat(cells).as(line).hasSize(9);
            String[] c = Arrays.stream(cells).map(String::trim).toArray(String[]::new);
            assertThat(c[8]).as(line).endsWith(" GiB");
            return new Row(
                    c[0],
                    Long.parseLong(c[1]),
                    Integer.parseInt(c[2]),
                    Double.parseDouble(c[3]),
                    Double.parseDouble(c[4]),
                    Double.parseDouble(c[5]),
                    Double.parseDouble(c[6]),
                    c[7].equals("-") ? null : Double.valueOf(c[7]),
                    Double.parseDouble(c[8].substring(0, c[8].length() - 4)));
        }
    }

    private static Path projectRoot() {
        for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("scripts/bench-all"))
                    && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        throw new IllegalStateException(
                "no project root (a folder with scripts/bench-all) above "
                        + Paths.get("").toAbsolutePath());
    }
}
