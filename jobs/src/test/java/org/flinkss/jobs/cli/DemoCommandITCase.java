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
