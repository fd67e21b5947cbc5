package org.flinkss.jobs.cli;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.jobs.CliOutput;
import org.flinkss.testutils.MiniClusters;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code demo --topic}: the course's walkthrough, now a course scenario that the command line only
 * shows. The topics before the one asked for run quietly (they land what it needs); the one asked
 * for prints its cells as the course does, with the command line's run lines, and a summary.
 */
class DemoCommandITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    @TempDir Path dir;

    @Test
    void oneTopicPrintsItsCellsAfterTheEarlierTopicsRanQuietly() {
        Path base = dir.resolve("demo");
        // Expected, as the course prints topic 11.04 after 11.03 landed batch 1 and ran bronze.
        String expected =
                String.join(
                        "\n",
                        "Working in " + base.toAbsolutePath(),
                        "",
                        "== 11.04 Micro-Batch Processing ==",
                        ">>> land_events(2, 500)",
                        ">>> run bronze (availableNow): bronze: 1 batch, 500 rows read, last batch"
                                + " id 1",
                        ">>> print(p[\"batchId\"], p[\"numInputRows\"])",
                        "1 500",
                        "    course: 1 500  (matches)",
                        ">>> print(spark.table(\"events_bronze\").count())",
                        "1000",
                        "    course: 1000  (matches)",
                        "",
                        "Summary (");

        CliOutput demo =
                CliOutput.of(
                        "demo",
                        "--topic",
                        "11.04",
                        "--base",
                        base.toString(),
                        "--parallelism",
                        "1");

        assertThat(demo.code()).as(demo.out() + demo.err()).isZero();
        assertThat(demo.out()).startsWith(expected).doesNotContain("== 11.03");
        assertThat(demo.out())
                .contains("  11.04  print(p[\"batchId\"], p[\"numInputRows\"])")
                .endsWith("  2 of 2 results match the course.\n");
    }

    /**
     * Topic 11.13 MERGEs into the Delta table {@code events_latest}, as the course does; the topics
     * before it ran quietly, 11.10's update mode MERGEing into its own Delta table among them.
     */
    @Test
    void topic1113MergesIntoTheDeltaTableOneMergeCommitPerBatch() {
        CliOutput demo =
                CliOutput.of(
                        "demo",
                        "--topic",
                        "11.13",
                        "--base",
                        dir.resolve("demo-1113").toString(),
                        "--parallelism",
                        "1");

        assertThat(demo.code()).as(demo.out() + demo.err()).isZero();
        assertThat(demo.out())
                .contains("== 11.13 Exactly-Once Processing Semantics ==")
                .contains(
                        "each batch one Delta commit: operation MERGE with txn(query id, batch id)")
                .contains("    course: 1501  (matches)")
                .contains("    course: 0 1501  (matches)")
                .doesNotContain("DIFFERS")
                .endsWith("  3 of 3 results match the course.\n");
    }

    @Test
    void anUnknownTopicIsRefusedBeforeAnythingRuns() {
        Path base = dir.resolve("demo");

        CliOutput demo = CliOutput.of("demo", "--topic", "11.99", "--base", base.toString());

        assertThat(demo.code()).isNotZero();
        assertThat(demo.err())
                .contains("no topic '11.99' in the demo: the topics are 11.01, 11.02, 11.03");
        assertThat(demo.out()).doesNotContain("Working in");
        assertThat(base.resolve("events")).doesNotExist();
    }
}
