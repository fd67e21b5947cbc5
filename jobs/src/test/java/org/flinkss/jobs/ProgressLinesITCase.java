package org.flinkss.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.runtime.checkpoint.JsonFiles;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code run} prints as a user watches it: the plan before the first batch, then one line per
 * batch on stdout, and its notes (the Flink configuration read, the REST address) on stderr, so
 * that stdout can be piped. {@code --progress json} prints the progress objects earlier versions
 * printed, and {@code progress --all} is JSON Lines.
 */
class ProgressLinesITCase {

    private static final Pattern BATCH =
            Pattern.compile(
                    "batch (\\d+)/12  10 rows  [0-9.]+K? rows/s  elapsed [0-9.]+ s  id (\\d+)");

    @TempDir Path dir;

    private CliOutput ok(String... args) {
        CliOutput o = CliOutput.of(args);
        assertThat(o.code()).as("%s: %s%s", List.of(args), o.out(), o.err()).isZero();
        return o;
    }

    private void land(String base, int batches) {
        for (int b = 0; b < batches; b++) {
            ok(
                    "land-events",
                    "--base",
                    base,
                    "--batch",
                    "" + b,
                    "--start",
                    "" + b * 10,
                    "--n",
                    "10");
        }
    }

    @Test
    void aRunOverTwelveBatchesPrintsItsPlanAndTwelveLines() {
        String base = dir.resolve("base").toString();
        land(base, 12);

        CliOutput run = ok("run", "bronze", "--base", base, "--max-files-per-trigger", "1");

        List<String> out = run.out().lines().toList();
        assertThat(out.get(0))
                .matches(
                        "plan for bronze: 12 batches, 12 files, [0-9.]+ KB \\(source events,"
                                + " maxFilesPerTrigger=1\\)");
        List<String> batches = out.stream().filter(l -> l.startsWith("batch ")).toList();
        assertThat(batches).hasSize(12);
        for (int i = 0; i < 12; i++) {
            Matcher m = BATCH.matcher(batches.get(i));
            assertThat(m.matches()).as(batches.get(i)).isTrue();
            assertThat(m.group(1)).isEqualTo("" + (i + 1));
            assertThat(m.group(2)).isEqualTo("" + i);
        }
        assertThat(out)
                .hasSize(14)
                .last()
                .isEqualTo("bronze: 12 batches, 120 rows read, last batch id 11");
        // Notes on stderr: nothing on stdout but the plan, the batches and the summary. (The Flink
        // configuration read is said once per process: maybe by an earlier test in this JVM.)
        assertThat(run.err()).containsPattern("Flink REST API at http://[0-9.a-z]+:\\d+");

        // A rerun finds nothing new, and its plan says so.
        CliOutput rerun = ok("run", "bronze", "--base", base);
        assertThat(rerun.out().lines())
                .containsExactly(
                        "plan for bronze: nothing new (source events, no limit)",
                        "bronze: nothing new (0 rows read, no new batch; next batch id 12)");
    }

    @Test
    void progressJsonPrintsTheProgressObjectsAndProgressAllIsJsonLines() throws Exception {
        String base = dir.resolve("base").toString();
        land(base, 2);

        CliOutput run =
                ok(
                        "run",
                        "bronze",
                        "--base",
                        base,
                        "--max-files-per-trigger",
                        "1",
                        "--progress",
                        "json");

        // Two pretty-printed objects, then the summary: what earlier versions printed (less the
        // Flink configuration line, now on stderr with the plan).
        String out = run.out();
        String summary = "bronze: 2 batches, 20 rows read, last batch id 1";
        assertThat(out.strip()).endsWith(summary);
        String objects = out.substring(0, out.lastIndexOf(summary));
        List<JsonNode> parsed =
                JsonFiles.JSON.readerFor(JsonNode.class).<JsonNode>readValues(objects).readAll();
        assertThat(parsed).hasSize(2);
        assertThat(parsed.get(1).path("batchId").asLong()).isEqualTo(1);
        assertThat(parsed.get(1).path("numInputRows").asLong()).isEqualTo(10);
        assertThat(objects.lines().count()).isGreaterThan(20); // pretty, as before
        assertThat(run.err()).contains("plan for bronze: 2 batches");

        List<String> all = ok("progress", "bronze", "--all", "--base", base).out().lines().toList();
        assertThat(all).hasSize(2);
        for (int i = 0; i < 2; i++) {
            assertThat(JsonFiles.JSON.readTree(all.get(i)).path("batchId").asLong()).isEqualTo(i);
        }
    }

    @Test
    void quietPrintsTheSummaryOnly() {
        String base = dir.resolve("base").toString();
        land(base, 1);

        CliOutput run = ok("run", "bronze", "--base", base, "--quiet");

        assertThat(run.out().lines())
                .containsExactly("bronze: 1 batch, 10 rows read, last batch id 0");
        assertThat(run.err()).isEmpty();
    }
}
