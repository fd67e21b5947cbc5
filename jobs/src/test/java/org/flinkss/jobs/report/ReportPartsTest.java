package org.flinkss.jobs.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The report's parts that need no Flink: a batch read from progress, escaping, chart choice. */
class ReportPartsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aBatchReadsSparksProgressFieldsAndLeavesOutWhatTheQueryHasNot() throws Exception {
        ObjectNode stateful =
                (ObjectNode)
                        JSON.readTree(
                                "{\"batchId\": 4, \"timestamp\": \"2025-03-01T10:00:00.000Z\","
                                        + " \"numInputRows\": 500, \"inputRowsPerSecond\": 250.5,"
                                        + " \"processedRowsPerSecond\": 400.0,"
                                        + " \"durationMs\": {\"triggerExecution\": 1250},"
                                        + " \"stateOperators\": [{\"numRowsTotal\": 9,"
                                        + " \"numRowsDroppedByWatermark\": 3}, {\"numRowsTotal\":"
                                        + " 1, \"numRowsDroppedByWatermark\": 2}],"
                                        + " \"sources\": [{\"numBadRows\": 0, \"watermarkAfter\":"
                                        + " 1740823200000}],"
                                        + " \"sink\": {\"others\": {\"events_5min_late\": 4,"
                                        + " \"other\": 7}}}");
        Batch batch = Batch.fromProgress(stateful);
        assertThat(batch)
                .isEqualTo(
                        new Batch(
                                4,
                                Instant.parse("2025-03-01T10:00:00Z"),
                                500,
                                250.5,
                                400.0,
                                1250,
                                1740823200000L,
                                10L,
                                5L,
                                4L,
                                0L));

        Batch stateless =
                Batch.fromProgress(
                        (ObjectNode)
                                JSON.readTree(
                                        "{\"batchId\": 0, \"numInputRows\": 5, \"sources\":"
                                                + " [{}], \"stateOperators\": []}"));
        assertThat(stateless.watermark()).isNull();
        assertThat(stateless.stateRows()).isNull();
        assertThat(stateless.droppedByWatermark()).isNull();
        assertThat(stateless.lateRowsKept()).isNull();
        assertThat(stateless.quarantined()).isNull();
        assertThat(stateless.time()).isNull();
    }

    @Test
    void jsonInAScriptElementCannotEndItOrOpenAComment() {
        String json = "{\"k\":\"</script><!-- & \u2028\"}";
        String safe = Html.scriptJson(json);
        assertThat(safe)
                .doesNotContain("<")
                .doesNotContain(">")
                .doesNotContain("&")
                .doesNotContain("\u2028")
                .isEqualTo("{\"k\":\"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028\"}");
        assertThat(Html.escape("<a href=\"x\">'&'</a>"))
                .isEqualTo("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }

    @Test
    void aQueryWhoseMeasuresStayedZeroGetsNoChartOfThemAndOneBatchNoWatermarkChart() {
        Batch one = new Batch(0, null, 5, 1, 1, 10, 1000L, 3L, 0L, 0L, 0L);
        List<String> titles =
                ChartSpecs.ofQuery(new QueryHistory("win5", List.of(one))).stream()
                        .map(Chart::title)
                        .toList();
        assertThat(titles)
                .containsExactly(
                        "Rows read per batch",
                        "Input rate and processing rate per batch",
                        "Batch duration",
                        "State rows after each batch");

        Batch late = new Batch(1, null, 5, 1, 1, 10, 2000L, 3L, 2L, 1L, 0L);
        assertThat(
                        ChartSpecs.ofQuery(new QueryHistory("win5", List.of(one, late))).stream()
                                .map(Chart::title))
                .contains(
                        "Rows dropped by the watermark and late rows kept, per batch",
                        "Watermark after each batch");
    }

    @Test
    void aTableOfManyKeysIsChartedAsTheirSumPerWindow() {
        Instant t = Instant.parse("2025-03-01T00:00:00Z");
        List<WindowRow> rows =
                java.util.stream.IntStream.range(0, 50)
                        .mapToObj(user -> new WindowRow(t, t.plusSeconds(300), "" + user, 2, 1.25))
                        .toList();
        List<Chart> charts =
                ChartSpecs.ofTable(new WindowedTable("events_sessions", "user_id", false, rows));
        assertThat(charts.get(0).title())
                .isEqualTo("Events per window, all 50 user_id values summed");
        assertThat(charts.get(0).spec().path("series")).hasSize(1);
        assertThat(charts.get(0).spec().path("series").path(0).path("data").toString())
                .isEqualTo("[[" + t.toEpochMilli() + ",100.0]]");
        assertThat(
                        charts.get(1)
                                .spec()
                                .path("series")
                                .path(0)
                                .path("data")
                                .path(0)
                                .path(1)
                                .asDouble())
                .isEqualTo(62.5);
    }
}
