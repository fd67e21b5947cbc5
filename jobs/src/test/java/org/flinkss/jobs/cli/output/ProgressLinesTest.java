package org.flinkss.jobs.cli.output;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import org.flinkss.runtime.checkpoint.JsonFiles;
import org.flinkss.runtime.progress.SourcePlan;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The lines {@code run} prints by default: the plan, then one line per batch. */
class ProgressLinesTest {

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final AtomicLong clock = new AtomicLong();
    private final ProgressLines lines =
            new ProgressLines(new PrintStream(printed, true, StandardCharsets.UTF_8), clock::get);

    private static ObjectNode progress(String query, long batchId, long rows, String watermark) {
        ObjectNode p = JsonFiles.JSON.createObjectNode();
        p.put("name", query);
        p.put("batchId", batchId);
        p.put("numInputRows", rows);
        p.put("processedRowsPerSecond", 412_345.6);
        p.putObject("eventTime").put("watermark", watermark);
        p.putArray("sources").addObject().put("numInputRows", rows);
        return p;
    }

    private String printed() {
        return printed.toString(StandardCharsets.UTF_8);
    }

    @Test
    void batchLinesCountAgainstThePlanWithRateWatermarkElapsedAndId() {
        lines.onPlan(
                new SourcePlan(
                        "win5",
                        "events_bronze",
                        12,
                        12,
                        6_144,
                        -1,
                        "events_bronze versions 3..14",
                        "maxFilesPerTrigger=1"));
        clock.set(4_100_000_000L);
        lines.onProgress(progress("win5", 16, 100_000, "2025-03-01T01:50:00.000Z"));

        assertThat(printed().lines())
                .containsExactly(
                        "plan for win5: 12 batches, 12 files, 6.0 KB: events_bronze versions"
                                + " 3..14 (source events_bronze, maxFilesPerTrigger=1)",
                        "batch 1/12  100,000 rows  412K rows/s  watermark 2025-03-01T01:50Z"
                                + "  elapsed 4.1 s  id 16");
    }

    @Test
    void withoutAPlanABatchHasNoTotalAndAQueryWithoutWatermarkShowsNone() {
        lines.onProgress(progress("bronze", 0, 500, "1970-01-01T00:00:00.000Z"));
        lines.onProgress(progress("bronze", 1, 500, "1970-01-01T00:00:00.000Z"));

        assertThat(printed().lines())
                .containsExactly(
                        "batch 1  500 rows  412K rows/s  elapsed 0.0 s  id 0",
                        "batch 2  500 rows  412K rows/s  elapsed 0.0 s  id 1");
    }

    @Test
    void aRunWithNothingNewPrintsItsPlanAndNoBatchLine() {
        lines.onPlan(new SourcePlan("bronze", "events", 0, 0, 0, -1, "", "no limit"));
        ObjectNode nothing = JsonFiles.JSON.createObjectNode();
        nothing.put("name", "bronze").put("batchId", 3).put("numInputRows", 0);
        nothing.putArray("sources");
        lines.onProgress(nothing);

        assertThat(printed().lines())
                .containsExactly("plan for bronze: nothing new (source events, no limit)");
    }

    @Test
    void aKafkaPlanSaysItsOffsets() {
        assertThat(
                        ProgressLines.planLine(
                                new SourcePlan(
                                        "kafka-bronze",
                                        "kafka",
                                        4,
                                        -1,
                                        -1,
                                        1_000,
                                        "events-0 0..500, events-1 0..500",
                                        "maxOffsetsPerTrigger=250")))
                .isEqualTo(
                        "plan for kafka-bronze: 4 batches, 1,000 offsets: events-0 0..500,"
                                + " events-1 0..500 (source kafka, maxOffsetsPerTrigger=250)");
    }

    @Test
    void sizesRatesAndInstantsAreShort() {
        assertThat(ProgressLines.bytes(812)).isEqualTo("812 B");
        assertThat(ProgressLines.bytes(6_246)).isEqualTo("6.1 KB");
        assertThat(ProgressLines.bytes(3L << 30)).isEqualTo("3.0 GB");
        assertThat(ProgressLines.rate(36.1)).isEqualTo("36");
        assertThat(ProgressLines.rate(1_234)).isEqualTo("1.2K");
        assertThat(ProgressLines.rate(3_100_000)).isEqualTo("3.1M");
        assertThat(ProgressLines.shortInstant("2025-03-01T01:50:30.000Z"))
                .isEqualTo("2025-03-01T01:50:30Z");
        assertThat(ProgressLines.shortInstant("2025-03-01T01:50:30.250Z"))
                .isEqualTo("2025-03-01T01:50:30.250Z");
    }
}
