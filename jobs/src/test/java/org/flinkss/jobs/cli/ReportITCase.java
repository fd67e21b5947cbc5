package org.flinkss.jobs.cli;

import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.flinkss.course.event.EventFiles;
import org.flinkss.course.event.EventGenerator;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.BronzeITCase;
import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.course.queries.WindowQuery;
import org.flinkss.jobs.Main;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.query.RunOptions;
import org.flinkss.runtime.storage.Storage;
import org.flinkss.runtime.table.Warehouse;
import org.flinkss.testutils.MiniClusters;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topic 11.15's report: one self-contained HTML file, its charts drawn by the inlined ECharts, of
 * every query's batches and of the windowed tables, with the late rows and the quarantined lines.
 * The browser tests open it in headless Chromium and keep a screenshot of each page in {@code
 * target/report-screenshots/}.
 */
class ReportITCase {

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = MiniClusters.create();

    /** Where the browser tests keep their screenshots (the jobs module's target folder). */
    static final Path SCREENSHOTS = Path.of("target", "report-screenshots");

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What the browser reports of each chart: its container, whether the page's script drew it, the
     * size of the SVG that ECharts drew into it, and every text of that SVG.
     */
    private static final String CHARTS =
            "Array.from(document.querySelectorAll('div.chart')).map(function (e) {"
                    + " var svg = e.querySelector('svg');"
                    + " var box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};"
                    + " return {id: e.id, rendered: e.getAttribute('data-rendered'),"
                    + " width: box.width, height: box.height,"
                    + " texts: svg ? Array.from(svg.querySelectorAll('text'))"
                    + ".map(function (t) { return t.textContent; }) : []}; })";

    @TempDir Path base;

    /** Three batches through bronze and win5, and the report of them. */
    private Path report() throws Exception {
        RunOptions options = BronzeITCase.options(base, 2);
        for (int batch = 1; batch <= 3; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
            QueryRunner.run(new BronzeQuery(options.events()), options);
            QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);
        }
        return write(options);
    }

    private Path write(RunOptions options) throws Exception {
        Path file = base.resolve("report.html");
        ReportCommand.write(
                Storage.location(base.toFile()),
                new Warehouse(options.warehouse()),
                null,
                Storage.location(file.toFile()));
        return file;
    }

    @Test
    void theReportIsOneSelfContainedPageWithAChartPerMeasure() throws Exception {
        String html = Files.readString(report(), StandardCharsets.UTF_8);

        // Nothing to fetch: the only scripts are inline (ECharts, inlined from its WebJar, and the
        // page's own), and the markup names no stylesheet, image, font or frame to load; the
        // page's Content-Security-Policy refuses any request besides.
        assertThat(html).startsWith("<!DOCTYPE html>");
        assertThat(count(html, "<script")).isEqualTo(3);
        assertThat(html)
                .contains("<script type=\"application/json\" id=\"report-data\">")
                .contains("Content-Security-Policy\" content=\"default-src 'none';")
                .contains("Licensed to the Apache Software Foundation");
        assertThat(markup(html))
                .doesNotContain("src=")
                .doesNotContain("href=")
                .doesNotContain("@import")
                .doesNotContain("url(")
                .doesNotContain("<link")
                .doesNotContain("<img")
                .doesNotContain("<iframe");
        // bronze: rows, rates, duration (no line quarantined: said, not charted); win5: the same
        // plus state rows and the watermark; events_5min: events, amount.
        assertThat(count(html, "<div class=\"chart\"")).isEqualTo(3 + 5 + 2);
        assertThat(html)
                .contains(
                        "<h3>bronze</h3>",
                        "<h3>win5</h3>",
                        "<h3>events_5min (",
                        "no line quarantined",
                        "State rows after each batch",
                        "Watermark after each batch",
                        "Input rate and processing rate per batch",
                        "Events per window by event_type");
        // Three batches of bronze: three bars on its chart of rows read, at batches 0, 1, 2.
        JsonNode rows = chart(html, "bronze", "Rows read per batch");
        assertThat(rows.path("x").path("categories").toString()).isEqualTo("[\"0\",\"1\",\"2\"]");
        assertThat(rows.path("series").path(0).path("data").toString())
                .isEqualTo("[500.0,500.0,500.0]");
        // The summary: three batches, 1,500 rows.
        assertThat(html).contains("<td class=\"name\">bronze</td><td>3</td><td>1,500</td>");
        // events_5min's windows on a time axis, each point a window start.
        JsonNode events = chart(html, "events_5min", "Events per window by event_type");
        assertThat(events.path("x").path("kind").asText()).isEqualTo("time");
        assertThat(events.path("series")).hasSize(3);
        long first = events.path("series").path(0).path("data").path(0).path(0).asLong();
        assertThat(Instant.ofEpochMilli(first))
                .isAfterOrEqualTo(Instant.parse("2025-03-01T00:00:00Z"));
    }

    @Test
    void theReportLoadsInAHeadlessBrowserAndDrawsItsCharts() throws Exception {
        assumeChromium();
        Path file = report();
        try (HeadlessChromium browser = HeadlessChromium.start(base)) {
            HeadlessChromium.Page page = browser.open(file);
            page.screenshot(SCREENSHOTS.resolve("three-batches.png"));

            // A clean console, no request but the page itself, and every chart drawn.
            assertThat(page.consoleErrors()).isEmpty();
            assertThat(page.requests()).containsExactly(file.toUri().toString());
            List<JsonNode> charts = drawn(page, 10);
            // Batches 0, 1 and 2: the first chart's batch axis is labelled 0, 1, 2, not 0.5.
            List<String> texts = texts(charts.get(0));
            assertThat(texts).contains("0", "1", "2", "batch", "rows").doesNotContain("0.5", "1.5");
        }
        assertThat(Files.size(SCREENSHOTS.resolve("three-batches.png"))).isGreaterThan(50_000);
    }

    @Test
    void aOneBatchQueryAndAnEmptyWindowedTableReadWell() throws Exception {
        // Step 1: five events 10 s apart, bronze and win5 once each: one batch; the watermark
        // (the newest event less 10 minutes) closes no window, so events_5min has no row.
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 5));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);
        assertThat(new Warehouse(options.warehouse()).count("events_5min")).isZero();

        // Step 2: the report says so, and charts one bar per measure of the one batch.
        Path file = write(options);
        String html = Files.readString(file, StandardCharsets.UTF_8);
        assertThat(html)
                .contains("<h3>events_5min (0 windows)</h3><p class=\"empty\">no rows</p>")
                .contains("1 batch, 5 rows read; last batch id 0");
        // bronze: rows, rates, duration; win5: the same and state rows (one watermark is in the
        // summary, not a chart); the empty table: none.
        assertThat(count(html, "<div class=\"chart\"")).isEqualTo(3 + 4);
        assertThat(
                        chart(html, "win5", "State rows after each batch")
                                .path("series")
                                .path(0)
                                .path("data")
                                .toString())
                .as("the open windows, in state")
                .isNotEqualTo("[0.0]");

        drawnInTheBrowser(file, "one-batch.png", 7);
    }

    @Test
    void lateRowsAreChartedByBatchAndListed() throws Exception {
        // Step 1: 500 events, bronze and win5: the watermark ends the run at the newest event
        // less 10 minutes. Step 2: five events of the first minute land again, and win5's second
        // batch drops them (Spark's rule: the watermark in force is the one the last batch ended
        // with) into events_5min_late.
        RunOptions options = BronzeITCase.options(base, 2);
        EventFiles.writeBatch(options.events(), 1, EventGenerator.events(0, 500));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);
        EventFiles.writeBatch(options.events(), 2, EventGenerator.events(0, 5));
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);
        assertThat(new Warehouse(options.warehouse()).count("events_5min_late")).isEqualTo(5);

        // Step 3: the summary counts them, a chart shows them in the second batch, and the late
        // table's rows are listed with why each was dropped.
        Path file = write(options);
        String html = Files.readString(file, StandardCharsets.UTF_8);
        assertThat(html)
                .contains(
                        "<td class=\"name\">win5</td><td>2</td><td>505</td>",
                        "<h3>events_5min_late (5 rows)</h3>",
                        "older than the watermark 2025-03-01T01:13:10");
        JsonNode late =
                chart(html, "win5", "Rows dropped by the watermark and late rows kept, per batch");
        assertThat(late.path("series").path(0).path("name").asText())
                .isEqualTo("dropped by the watermark");
        assertThat(late.path("series").path(0).path("data").toString()).isEqualTo("[0.0,5.0]");
        assertThat(late.path("series").path(1).path("data").toString()).isEqualTo("[0.0,5.0]");

        drawnInTheBrowser(file, "late-rows.png", count(html, "<div class=\"chart\""));
    }

    @Test
    void markupInTheDataIsShownAsTextAndNeverRuns() throws Exception {
        // Step 1: events whose event_type is markup, and a landed line that is markup (not JSON,
        // so quarantined with its text); 200 events 10 s apart, so win5 closes some windows.
        String img = "<img src=x onerror=\"document.title='pwned'\">";
        String script = "</script><script>document.title='pwned'</script>";
        RunOptions options = BronzeITCase.options(base, 2);
        List<String> lines = new ArrayList<>();
        for (int id = 0; id < 200; id++) {
            lines.add(
                    JSON.createObjectNode()
                            .put("event_id", id)
                            .put("user_id", 1 + id % 3)
                            .put("event_type", id % 2 == 0 ? img : "view")
                            .put(
                                    "event_ts",
                                    Instant.parse("2025-03-01T00:00:00Z")
                                            .plusSeconds(10L * id)
                                            .toString())
                            .put("amount", 1.5)
                            .toString());
        }
        lines.add(script);
        Path batch =
                Files.createDirectories(
                        Storage.localFile(options.events(), "a test file")
                                .toPath()
                                .resolve("batch_1"));
        Files.write(batch.resolve("part-0.json"), lines, StandardCharsets.UTF_8);
        QueryRunner.run(new BronzeQuery(options.events()), options);
        QueryRunner.run(WindowQuery.win5(Api.DATASTREAM), options);

        // Step 2: the page holds the data only as text: escaped in HTML, \u003c in its JSON.
        Path file = write(options);
        String html = Files.readString(file, StandardCharsets.UTF_8);
        assertThat(count(html, "<script")).isEqualTo(3);
        assertThat(count(html, "</script>")).isEqualTo(3);
        assertThat(markup(html)).doesNotContain("<img");
        assertThat(html)
                .contains("&lt;/script&gt;&lt;script&gt;document.title=&#39;pwned&#39;")
                .contains("\\u003cimg src=x onerror=");

        // Step 3: in a browser, nothing of it runs or becomes an element; it reads as it was,
        // in the quarantine table, in the legend, and in a tooltip.
        assumeChromium();
        try (HeadlessChromium browser = HeadlessChromium.start(base)) {
            HeadlessChromium.Page page = browser.open(file);
            assertThat(page.consoleErrors()).isEmpty();
            assertThat(page.evaluate("document.title").asText())
                    .isEqualTo("flink-structured-streaming report");
            assertThat(page.evaluate("document.scripts.length").asInt()).isEqualTo(3);
            assertThat(page.evaluate("document.querySelectorAll('img').length").asInt()).isZero();
            // The quarantine table holds the line; the late table before it its row of nulls
            // (Spark's PERMISSIVE row, which has no event time).
            assertThat(
                            page.evaluate(
                                            "Array.from(document.querySelectorAll('table.rows'))"
                                                    + ".map(t => t.textContent).join('\\n')")
                                    .asText())
                    .contains(script);
            List<JsonNode> charts = drawn(page, count(html, "<div class=\"chart\""));
            assertThat(charts.stream().flatMap(c -> texts(c).stream())).contains(img);
            // A tooltip is HTML: show one on the events chart, with the markup as a series name.
            String events =
                    chart(html, "events_5min", "Events per window by event_type")
                            .path("id")
                            .asText();
            page.evaluate(
                    "echarts.getInstanceByDom(document.getElementById('"
                            + events
                            + "')).dispatchAction({type: 'showTip', seriesIndex: 0,"
                            + " dataIndex: 0}); true");
            assertThat(
                            page.evaluate("document.getElementById('" + events + "').textContent")
                                    .asText())
                    .contains(img);
            assertThat(page.evaluate("document.querySelectorAll('img').length").asInt()).isZero();
            assertThat(page.evaluate("document.title").asText())
                    .isEqualTo("flink-structured-streaming report");
            page.screenshot(SCREENSHOTS.resolve("markup.png"));
        }
    }

    @Test
    void windowedTablesOfTheSqlDatabaseAreChartedAndBatchAxesShowWholeBatchIds() throws Exception {
        // Step 1: three batches through bronze, then win5 in update mode: events_5min is kept in
        // the SQL database (SQLite in the warehouse), not in the warehouse.
        RunOptions options = BronzeITCase.options(base, 2);
        RunOptions update =
                RunOptions.builder()
                        .base(Storage.location(base.toFile()))
                        .parallelism(2)
                        .printProgress(false)
                        .outputMode(OutputMode.UPDATE)
                        // The SQL path (without --jdbc-url update mode MERGEs into Delta).
                        .jdbcUrl(options.database().describe())
                        .build();
        for (int batch = 1; batch <= 3; batch++) {
            EventFiles.writeBatch(
                    options.events(), batch, EventGenerator.events((batch - 1) * 500L, 500));
            QueryRunner.run(new BronzeQuery(options.events()), options);
            QueryRunner.run(QueryCatalog.WIN5.create(update, Api.DATASTREAM), update);
        }
        assertThat(new Warehouse(options.warehouse()).exists("events_5min")).isFalse();

        // Step 2: the command line's report finds the database by itself.
        assertThat(Main.execute("report", "--base", base.toString())).isZero();
        String html = Files.readString(base.resolve("report.html"), StandardCharsets.UTF_8);

        // Every window the database holds is charted.
        long windows = options.database().count("events_5min");
        assertThat(windows).isPositive();
        assertThat(html)
                .contains("<h3>events_5min (SQL database, update mode: " + windows + " windows");
        JsonNode chart = chart(html, "events_5min", "Events per window by event_type");
        long charted =
                StreamSupport.stream(chart.path("series").spliterator(), false)
                        .mapToLong(s -> s.path("data").size())
                        .sum();
        assertThat(charted).as("a point per window and key").isEqualTo(windows);
        // Batches 0, 1 and 2: the batch axis has the categories 0, 1, 2, not 0.0, 0.5, 1.0 ...
        assertThat(
                        chart(html, "win5", "Rows read per batch")
                                .path("x")
                                .path("categories")
                                .toString())
                .isEqualTo("[\"0\",\"1\",\"2\"]");
    }

    /**
     * Where there is a browser: the page opens with a clean console, every chart drawn, and its
     * screenshot kept.
     */
    private void drawnInTheBrowser(Path file, String screenshot, int charts) throws Exception {
        if (!HeadlessChromium.available()) {
            return;
        }
        try (HeadlessChromium browser = HeadlessChromium.start(base)) {
            HeadlessChromium.Page page = browser.open(file);
            page.screenshot(SCREENSHOTS.resolve(screenshot));
            assertThat(page.consoleErrors()).isEmpty();
            drawn(page, charts);
        }
    }

    private static void assumeChromium() {
        Assumptions.assumeTrue(
                HeadlessChromium.available(),
                "SKIPPED: no "
                        + HeadlessChromium.CHROMIUM
                        + " here (apt-get install chromium) to render the report in a real"
                        + " browser");
    }

    /** Every chart of the page, each drawn by the page's script into an SVG of some size. */
    private static List<JsonNode> drawn(HeadlessChromium.Page page, int expected)
            throws InterruptedException {
        List<JsonNode> charts = new ArrayList<>();
        page.evaluate(CHARTS).forEach(charts::add);
        assertThat(charts).as("charts of %s", page).hasSize(expected);
        for (JsonNode chart : charts) {
            String id = chart.path("id").asText();
            assertThat(chart.path("rendered").asText()).as("%s drawn", id).isEqualTo("true");
            assertThat(chart.path("width").asDouble()).as("%s width", id).isGreaterThan(100);
            assertThat(chart.path("height").asDouble()).as("%s height", id).isGreaterThan(100);
            assertThat(texts(chart)).as("%s texts", id).isNotEmpty();
            assertThat(String.join(" ", texts(chart)))
                    .as("%s texts", id)
                    .doesNotContain("NaN")
                    .doesNotContain("Infinity")
                    .doesNotContain("undefined");
        }
        return charts;
    }

    private static List<String> texts(JsonNode chart) {
        List<String> texts = new ArrayList<>();
        chart.path("texts").forEach(t -> texts.add(t.asText()));
        return texts;
    }

    /** The specification of the chart {@code title} of a query or table, from the page's data. */
    private static JsonNode chart(String html, String of, String title) throws Exception {
        Matcher data =
                Pattern.compile(
                                "<script type=\"application/json\""
                                        + " id=\"report-data\">(.*?)</script>",
                                Pattern.DOTALL)
                        .matcher(html);
        assertThat(data.find()).as("the page's data").isTrue();
        for (JsonNode chart : JSON.readTree(data.group(1)).path("charts")) {
            if (chart.path("of").asText().equals(of)
                    && chart.path("title").asText().equals(title)) {
                return chart;
            }
        }
        throw new AssertionError("no chart '" + title + "' of " + of);
    }

    /** The page without the contents of its script elements. */
    private static String markup(String html) {
        return html.replaceAll("(?s)(<script[^>]*>).*?</script>", "$1</script>");
    }

    private static int count(String s, String what) {
        return s.split(Pattern.quote(what), -1).length - 1;
    }
}
