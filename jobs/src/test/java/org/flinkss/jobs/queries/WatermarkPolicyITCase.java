package org.flinkss.jobs.queries;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;
import org.flinkss.testutils.ProjectScripts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --watermark-policy} (issue 35 point 2): view-then-buy's first run records its policy in
 * the checkpoint as Spark records {@code spark.sql.streaming.multipleWatermarkPolicy}; a later run
 * with another policy is refused before anything runs, naming the query, the checkpoint, both
 * policies and {@code reset}, and changes nothing; the dry run shows the policy. {@code max} on a
 * query with one watermarked input (win5, a SQL file's query, which reads one source) is refused.
 * Which rows max gives is spark-diff's to show ({@code SparkDiffITCase}).
 */
class WatermarkPolicyITCase {

    @TempDir Path dir;

    private static CliOutput ok(String... args) {
        return CliOutput.succeeded(args);
    }

    private static CliOutput refused(String... args) {
        return CliOutput.failed(args);
    }

    @Test
    void thePolicyStaysWithTheCheckpointAndMaxNeedsSeveralWatermarkedInputs() throws IOException {
        String base = dir.resolve("base").toString();
        Path metadata = dir.resolve("base/_cp/view-then-buy/metadata.json");
        ok("land-events", "--base", base, "--batch", "0", "--start", "0", "--n", "200");
        ok("run", "bronze", "--base", base, "--quiet");

        // Step 1: the first run under max records it, under Spark's key.
        ok("run", "view-then-buy", "--base", base, "--watermark-policy", "max", "--quiet");
        String recorded = Files.readString(metadata);
        assertThat(recorded)
                .contains("\"conf\":{\"spark.sql.streaming.multipleWatermarkPolicy\":\"max\"}");
        String joined = ok("table", "count", "view_then_buy", "--base", base).out();
        assertThat(ok("status", "view-then-buy", "--base", base).out())
                .containsPattern(
                        "made with +API [a-z]+, output mode append, --watermark-policy max\n");

        // Step 2: a run without the option (min) is refused in one line, and nothing changes.
        CliOutput min = refused("run", "view-then-buy", "--base", base);
        assertThat(min.err())
                .contains("query 'view-then-buy' refused: its checkpoint ")
                .contains("_cp/view-then-buy")
                .contains("made with --watermark-policy max, but this run asks for")
                .contains("--watermark-policy min")
                .contains("'reset view-then-buy'");
        assertThat(min.errLines()).hasSize(1);
        assertThat(Files.readString(metadata)).isEqualTo(recorded);
        assertThat(ok("table", "count", "view_then_buy", "--base", base).out()).isEqualTo(joined);

        // Step 3: the dry run shows the policy, and refuses the other one as the run does.
        assertThat(
                        ok(
                                        "run",
                                        "view-then-buy",
                                        "--base",
                                        base,
                                        "--watermark-policy",
                                        "max",
                                        "--dry-run")
                                .out())
                .contains(
                        "note: watermark policy: max (spark.sql.streaming.multipleWatermarkPolicy;"
                                + " kept in the checkpoint)")
                .doesNotContain("refused");
        assertThat(ok("run", "view-then-buy", "--base", base, "--dry-run").out())
                .contains("refused: query 'view-then-buy' refused");

        // Step 4: max on one watermarked input would change nothing: refused, no checkpoint made.
        CliOutput win5 = refused("run", "win5", "--base", base, "--watermark-policy", "max");
        assertThat(win5.err())
                .contains("query 'win5' has one watermark input: --watermark-policy max")
                .contains("Leave the option out");
        assertThat(dir.resolve("base/_cp/win5/metadata.json")).doesNotExist();

        // Step 5: a SQL file's query reads one source, its table's WATERMARK one node: the same.
        String sql = ProjectScripts.ROOT.resolve("examples/sql/win5.sql").toString();
        assertThat(
                        refused(
                                        "sql",
                                        "--file",
                                        sql,
                                        "--name",
                                        "own-win5",
                                        "--base",
                                        base,
                                        "--watermark-policy",
                                        "max")
                                .err())
                .contains("query 'own-win5' has one watermark input: --watermark-policy max");
    }
}
